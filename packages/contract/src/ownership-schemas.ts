import { z } from 'zod';
import { handleAddressSchema, postIdSchema, remoteHandleSchema } from './ids.ts';
import { domainSchema } from './node-domain.ts';
import { didSchema, interactionIdSchema, signatureSchema, timestampSchema } from './primitives.ts';

/**
 * Account ownership on the wire (docs/protocol.md "Deleting posts and accounts", "Moving an
 * account", "Account archive"): deletions and moves are statements signed by the user's own key
 * (their did:key), relayed node-signed to every node concerned. A statement is one body for all
 * its receivers: its user signature names as `targetDomain` the node the account lives on (for a
 * move: the node it leaves), not each receiver, so the browser signs it once.
 */

/** `POST /api/swarm/deletions`: a post, or a whole account, deleted by its author. */
export const deletionBodySchema = z.object({
  deletion: z.object({
    kind: z.enum(['post', 'account']),
    actorHandle: remoteHandleSchema,
    actorNodeDomain: domainSchema,
    did: didSchema,
    /** `kind: post`: the post's id on the author's node. */
    postId: postIdSchema.optional(),
    interactionId: interactionIdSchema,
    timestamp: timestampSchema,
  }),
  signature: signatureSchema,
});
export type DeletionBody = z.output<typeof deletionBodySchema>;
export type Deletion = DeletionBody['deletion'];

/** `POST /api/swarm/moves`: the account `from` now lives at `to`, same did. */
export const moveBodySchema = z.object({
  move: z.object({
    did: didSchema,
    from: handleAddressSchema,
    to: handleAddressSchema,
    interactionId: interactionIdSchema,
    timestamp: timestampSchema,
  }),
  signature: signatureSchema,
});
export type MoveBody = z.output<typeof moveBodySchema>;
export type Move = MoveBody['move'];

/** The user-signature `action` of a deletion statement. */
export function deletionAction(kind: Deletion['kind']): 'delete-post' | 'delete-account' {
  return kind === 'post' ? 'delete-post' : 'delete-account';
}

// ---------------------------------------------------------------------------------------------
// Account archive (export / import)
// ---------------------------------------------------------------------------------------------

export const ARCHIVE_FORMAT = 'swarm-account-archive';
export const ARCHIVE_VERSION = 1;
/** Bounds of an archive this node accepts (and makes). */
export const ARCHIVE_LIMITS = {
  posts: 20_000,
  people: 20_000,
  mediaPerPost: 4,
  /** Bytes of the archive's JSON text. */
  bytes: 32 * 1024 * 1024,
} as const;

const archiveText = (max: number) => z.string().max(max);

/** A media entry: by URL today; `file` names an entry of a zipped archive (uploaded media). */
export const archiveMediaSchema = z.object({
  url: z.string().max(2048),
  mimeType: archiveText(200),
  altText: archiveText(1500).default(''),
  file: archiveText(300).optional(),
});

export const archivePostSchema = z.object({
  /** The post's id on the exporting node. */
  id: postIdSchema,
  content: archiveText(20_000),
  createdAt: timestampSchema,
  isNsfw: z.boolean().default(false),
  visibility: z.enum(['public', 'unlisted', 'followers']).default('public'),
  /** A reply: the parent as `swarm:{domain}:{postId}` (the exporting node's own posts too). */
  replyTo: archiveText(600).nullable().default(null),
  linkPreview: z
    .object({
      url: archiveText(2048),
      title: archiveText(500).default(''),
      description: archiveText(2000).default(''),
      image: archiveText(2048).default(''),
    })
    .nullable()
    .default(null),
  media: z.array(archiveMediaSchema).max(ARCHIVE_LIMITS.mediaPerPost).default([]),
});
export type ArchivePost = z.output<typeof archivePostSchema>;

const archivePersonSchema = z.object({
  address: handleAddressSchema,
  since: timestampSchema,
});

/** The archive without its `signature`: what the user's key signs (action `export`). */
export const accountArchiveContentSchema = z.object({
  format: z.literal(ARCHIVE_FORMAT),
  version: z.literal(ARCHIVE_VERSION),
  exportedAt: timestampSchema,
  /** The node the account lived on when exported. */
  nodeDomain: domainSchema,
  account: z.object({
    handle: remoteHandleSchema,
    did: didSchema,
    publicKey: archiveText(4000).nullable().default(null),
    displayName: archiveText(200).default(''),
    bio: archiveText(5000).default(''),
    avatarUrl: archiveText(2048).default(''),
    headerUrl: archiveText(2048).default(''),
    website: archiveText(2048).default(''),
    isBot: z.boolean().default(false),
    isNsfw: z.boolean().default(false),
    createdAt: timestampSchema,
    /** The password-encrypted key backup, as the node holds it (docs/security.md). */
    encryptedKeyBackup: archiveText(20_000),
  }),
  posts: z.array(archivePostSchema).max(ARCHIVE_LIMITS.posts),
  follows: z.array(archivePersonSchema).max(ARCHIVE_LIMITS.people),
  followers: z.array(archivePersonSchema).max(ARCHIVE_LIMITS.people),
  mutes: z.array(archivePersonSchema).max(ARCHIVE_LIMITS.people).default([]),
  /** Whole nodes the user muted. */
  mutedNodes: z
    .array(z.object({ domain: domainSchema, since: timestampSchema }))
    .max(ARCHIVE_LIMITS.people)
    .default([]),
  blocks: z.array(archivePersonSchema).max(ARCHIVE_LIMITS.people).default([]),
});
export type AccountArchiveContent = z.output<typeof accountArchiveContentSchema>;

export const accountArchiveSchema = accountArchiveContentSchema.extend({
  /** The user's signature, action `export`, `targetDomain` = `nodeDomain`. */
  signature: signatureSchema,
});
export type AccountArchive = z.output<typeof accountArchiveSchema>;
