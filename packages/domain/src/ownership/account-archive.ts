import {
  ARCHIVE_FORMAT,
  ARCHIVE_LIMITS,
  ARCHIVE_VERSION,
  accountArchiveSchema,
  formatSwarmPostId,
  formatTimestamp,
  ok,
  parseHandleAddress,
  parseLocalHandle,
  parseSwarmPostId,
  type AccountArchive,
  type AccountArchiveContent,
  type UserAction,
  type Result,
} from '@swarm/contract';
import type { Db } from '@swarm/db';
import { inTransaction, refuse, RefusalError, type Refusal } from '../refusal.ts';
import type { Clock } from '../clock.ts';
import type { NodeConfig } from '../config.ts';
import type { Logger } from '../logger.ts';
import { checkKeyBackup } from '@swarm/contract';
import type { Limits } from '../replicas/limits.ts';
import { BLOCKS_MAX, MUTES_MAX } from '../safety/safety.service.ts';
import type { ImportInput, PreparedStatement } from './ownership-types.ts';

/** The rate limit of imports, per client address (an import creates an account). */
export const IMPORT_IP_LIMIT = 'import-ip';

/**
 * The account archive (docs/protocol.md "Account archive"): what the user's browser signs on
 * export, and the import that creates the account from it on another node, all or nothing.
 */
export interface AccountArchives {
  prepareExport(userId: string): Promise<Result<PreparedStatement, Refusal>>;
  importArchive(
    input: ImportInput,
  ): Promise<Result<{ handle: string; posts: number; pending: boolean }, Refusal>>;
}

export function createAccountArchives(deps: {
  db: Db;
  clock: Clock;
  logger: Logger;
  config: Pick<NodeConfig, 'domain' | 'signUpLimitPerHour'>;
  limits: Pick<Limits, 'take'>;
  signedByDid: (
    did: string,
    action: UserAction,
    targetDomain: string,
    body: unknown,
  ) => Promise<boolean>;
}): AccountArchives {
  const { db, clock, logger, config, signedByDid } = deps;
  const prisma = db.prisma;
  const self = config.domain;
  /** As many imports per address and hour as sign-ups (SWARM_SIGNUPS_PER_HOUR). */
  const importsPerIp = { points: config.signUpLimitPerHour, windowMs: 3_600_000 };

  return {
    async prepareExport(userId) {
      const user = await prisma.user.findUnique({ where: { id: userId } });
      if (!user)
        return refuse('UNAUTHORIZED', 'Your account does not exist any more: sign in again.');
      if (!user.did || !user.encryptedKeyBackup) {
        return refuse(
          'INVALID_REQUEST',
          'Your account has no key backup yet, so it cannot be exported.',
        );
      }
      const posts = await prisma.post.findMany({
        where: { authorId: userId, apId: null, deletedAt: null, repostOfId: null },
        orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
        take: ARCHIVE_LIMITS.posts,
        include: {
          media: { orderBy: { position: 'asc' } },
          replyTo: { select: { id: true, apId: true } },
        },
      });
      const person = (address: string, since: Date) => ({ address, since: formatTimestamp(since) });
      const addressOfKey = (
        key: string,
        actor: { handle: string; nodeDomain: string } | null,
        local: { handle: string } | null,
      ) =>
        local ? `${local.handle}@${self}` : actor ? `${actor.handle}@${actor.nodeDomain}` : key;
      const [follows, followers, blocks, mutes] = await Promise.all([
        prisma.follow.findMany({
          where: { followerUserId: userId, state: 'accepted' },
          take: ARCHIVE_LIMITS.people,
          include: {
            followeeUser: { select: { handle: true } },
            followeeRemoteActor: { select: { handle: true, nodeDomain: true } },
          },
        }),
        prisma.follow.findMany({
          where: { followeeUserId: userId, state: 'accepted' },
          take: ARCHIVE_LIMITS.people,
          include: {
            followerUser: { select: { handle: true } },
            followerRemoteActor: { select: { handle: true, nodeDomain: true } },
          },
        }),
        prisma.userBlock.findMany({ where: { userId }, take: ARCHIVE_LIMITS.people }),
        prisma.userMute.findMany({
          where: { userId },
          orderBy: { createdAt: 'asc' },
          take: ARCHIVE_LIMITS.people,
        }),
      ]);
      const content: AccountArchiveContent = {
        format: ARCHIVE_FORMAT,
        version: ARCHIVE_VERSION,
        exportedAt: formatTimestamp(clock.now()),
        nodeDomain: self,
        account: {
          handle: user.handle,
          did: user.did,
          publicKey: user.publicKey,
          displayName: user.displayName,
          bio: user.bio,
          avatarUrl: user.avatarUrl ?? '',
          headerUrl: user.headerUrl ?? '',
          website: user.website ?? '',
          isBot: user.isBot,
          isNsfw: user.isNsfw,
          createdAt: formatTimestamp(user.createdAt),
          encryptedKeyBackup: user.encryptedKeyBackup,
        },
        posts: posts.map((p) => ({
          id: p.id,
          content: p.content,
          createdAt: formatTimestamp(p.createdAt),
          isNsfw: p.isNsfw,
          visibility: p.visibility,
          replyTo: p.replyTo
            ? (p.replyTo.apId ?? formatSwarmPostId({ domain: self, postId: p.replyTo.id }))
            : null,
          linkPreview: p.linkPreviewUrl
            ? {
                url: p.linkPreviewUrl,
                title: p.linkPreviewTitle ?? '',
                description: p.linkPreviewDescription ?? '',
                image: p.linkPreviewImage ?? '',
              }
            : null,
          media: p.media.map((m) => ({ url: m.url, mimeType: m.mimeType, altText: m.altText })),
        })),
        follows: follows
          .filter((f) => f.followeeUser || f.followeeRemoteActor)
          .map((f) =>
            person(addressOfKey(f.followeeKey, f.followeeRemoteActor, f.followeeUser), f.createdAt),
          ),
        followers: followers
          .filter((f) => f.followerUser || f.followerRemoteActor)
          .map((f) =>
            person(addressOfKey(f.followerKey, f.followerRemoteActor, f.followerUser), f.createdAt),
          ),
        mutes: mutes
          .filter((m) => m.kind === 'person' && parseHandleAddress(m.target).ok)
          .map((m) => person(m.target, m.createdAt)),
        mutedNodes: mutes
          .filter((m) => m.kind === 'node')
          .map((m) => ({ domain: m.target, since: formatTimestamp(m.createdAt) })),
        blocks: blocks
          .map((b) => ({ address: b.blockedAddress, since: formatTimestamp(b.createdAt) }))
          .filter((b) => parseHandleAddress(b.address).ok),
      };
      return ok({
        action: 'export',
        targetDomain: self,
        body: content as unknown as Record<string, unknown>,
      });
    },

    async importArchive(input) {
      if (input.archiveText.length > ARCHIVE_LIMITS.bytes) {
        return refuse('INVALID_REQUEST', 'The archive is too large.');
      }
      let raw: unknown;
      try {
        raw = JSON.parse(input.archiveText);
      } catch {
        return refuse('INVALID_REQUEST', 'The archive is not a JSON document.');
      }
      const parsed = accountArchiveSchema.safeParse(raw);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        return refuse(
          'INVALID_REQUEST',
          `This is not an account archive of version ${ARCHIVE_VERSION}${issue ? ` (${issue.path.join('.') || 'document'}: ${issue.message})` : ''}.`,
        );
      }
      const archive: AccountArchive = parsed.data;
      // Tampering: the archive must verify, exactly as uploaded, with the key it names.
      if (!(await signedByDid(archive.account.did, 'export', archive.nodeDomain, raw))) {
        return refuse(
          'INVALID_REQUEST',
          'The archive was changed after it was exported (its signature does not match): use the file as it was downloaded.',
        );
      }
      // Ownership: the importer proves holding that key (decrypted from the backup in their browser).
      const proofBody = { archiveSignature: archive.signature, signature: input.proof };
      if (!(await signedByDid(archive.account.did, 'import', self, proofBody))) {
        return refuse(
          'FORBIDDEN',
          'This archive belongs to another account: the import must be signed with the key inside it (check the password).',
        );
      }
      const backup = checkKeyBackup(archive.account.encryptedKeyBackup);
      if (!backup.ok)
        return refuse('INVALID_REQUEST', `The archive's key backup: ${backup.reason}`);
      const handle = parseLocalHandle(archive.account.handle);
      if (!handle.ok) {
        return refuse(
          'INVALID_REQUEST',
          `The handle "${archive.account.handle}" cannot be used on this node.`,
        );
      }
      // Charged once the archive is a valid one (a typo costs nothing), before the password is
      // hashed and anything is written.
      const charged = await deps.limits.take(IMPORT_IP_LIMIT, input.clientIp, importsPerIp);
      if (!charged.ok) {
        const minutes = Math.ceil(charged.retryAfterSec / 60);
        return refuse(
          'RATE_LIMITED',
          `Too many imports from your address; try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`,
          { details: { retryAfterSec: charged.retryAfterSec } },
        );
      }
      const now = clock.now();
      const [taken, tomb, sameDid] = await Promise.all([
        prisma.user.findUnique({ where: { handle: handle.value }, select: { id: true } }),
        prisma.accountTombstone.findFirst({
          where: { handle: handle.value, reservedUntil: { gt: now } },
        }),
        prisma.user.findUnique({ where: { did: archive.account.did }, select: { handle: true } }),
      ]);
      if (sameDid) {
        return refuse('KEY_CONFLICT', `This account is already here (as ${sameDid.handle}).`);
      }
      if (taken || (tomb && tomb.did !== archive.account.did)) {
        return refuse('HANDLE_TAKEN', `The handle "${handle.value}" is taken on this node.`);
      }
      const from = `${archive.account.handle}@${archive.nodeDomain}`;
      const passwordHash = await input.hashPassword();
      const me = `${handle.value}@${self}`;
      // Mutes and blocks as the account had them, within this node's bounds, never of itself.
      const mutes = [
        ...archive.mutes.map((m) => ({ kind: 'person', target: m.address, since: m.since })),
        ...archive.mutedNodes.map((m) => ({ kind: 'node', target: m.domain, since: m.since })),
      ]
        .filter((m) => m.target !== me && m.target !== self)
        .slice(0, MUTES_MAX);
      const blocks = archive.blocks.filter((b) => b.address !== me).slice(0, BLOCKS_MAX);
      const written = await inTransaction(db, async (tx) => {
        const admission = await input.admit(tx);
        if (!admission.ok) throw new RefusalError(admission.reason);
        const a = archive.account;
        const user = await tx.user.create({
          data: {
            handle: handle.value,
            displayName: a.displayName,
            bio: a.bio,
            avatarUrl: a.avatarUrl || null,
            headerUrl: a.headerUrl || null,
            website: a.website || null,
            isBot: a.isBot,
            isNsfw: a.isNsfw,
            passwordHash,
            did: a.did,
            publicKey: a.publicKey,
            encryptedKeyBackup: a.encryptedKeyBackup,
            movedFrom: from,
            pendingApproval: admission.value.pending,
            signupReason: admission.value.reason,
            createdAt: now,
          },
          select: { id: true },
        });
        if (tomb) await tx.accountTombstone.delete({ where: { handle: handle.value } });
        // Old ids → new ids, for replies to one's own posts (the archive lists parents first).
        const ids = new Map<string, string>();
        let count = 0;
        for (const post of archive.posts) {
          const parent = post.replyTo ? parseSwarmPostId(post.replyTo) : null;
          const replyToId =
            parent?.ok && parent.value.domain === archive.nodeDomain
              ? (ids.get(parent.value.postId) ?? null)
              : post.replyTo
                ? ((
                    await tx.post.findUnique({
                      where: { apId: post.replyTo },
                      select: { id: true },
                    })
                  )?.id ?? null)
                : null;
          const created = await tx.post.create({
            data: {
              authorId: user.id,
              content: post.content,
              isNsfw: post.isNsfw,
              visibility: post.visibility,
              replyToId,
              createdAt: new Date(post.createdAt),
              movedFrom: formatSwarmPostId({ domain: archive.nodeDomain, postId: post.id }),
              linkPreviewUrl: post.linkPreview?.url ?? null,
              linkPreviewTitle: post.linkPreview?.title || null,
              linkPreviewDescription: post.linkPreview?.description || null,
              linkPreviewImage: post.linkPreview?.image || null,
              media: {
                create: post.media.map((m, position) => ({
                  url: m.url,
                  mimeType: m.mimeType,
                  altText: m.altText,
                  position,
                })),
              },
            },
            select: { id: true },
          });
          ids.set(post.id, created.id);
          count++;
        }
        await tx.user.update({ where: { id: user.id }, data: { postsCount: count } });
        await tx.userBlock.createMany({
          data: blocks.map((b) => ({
            userId: user.id,
            blockedAddress: b.address,
            createdAt: new Date(b.since),
          })),
          skipDuplicates: true,
        });
        await tx.userMute.createMany({
          data: mutes.map((m) => ({
            userId: user.id,
            kind: m.kind,
            target: m.target,
            createdAt: new Date(m.since),
          })),
          skipDuplicates: true,
        });
        return { posts: count, pending: admission.value.pending };
      });
      if (!written.ok) return written;
      logger.info({ handle: handle.value, from, ...written.value }, 'account imported');
      return ok({ handle: handle.value, ...written.value });
    },
  };
}
