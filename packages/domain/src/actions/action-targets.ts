import { z } from 'zod';
import {
  SWARM_PATHS,
  formatSwarmPostId,
  ok,
  parseHandleAddress,
  parsePeerSinglePost,
  parseSwarmPostId,
  swarmUserResponseSchema,
  uuidSchema,
  type Result,
} from '@swarm/contract';
import { parseProfileAddress } from '../profiles/index.ts';
import { guessMimeType } from '../interactions/inbound-helpers.ts';
import { upsertRemoteActor } from '../interactions/interaction-effects.ts';
import type { RemoteActorFields } from '../persistence/interactions.sql.ts';
import { describePeerError } from '../peers/index.ts';
import { refuse, type Refusal } from '../refusal.ts';
import type { ActionDeps } from './action-support.ts';

/**
 * What a user action is aimed at: a post or a person, here or on another node. Remote posts
 * are recorded locally as a copy row (`apId` = `swarm:{domain}:{postId}`, upserted by apId) so
 * "I liked this" and "my reply answers this" are known here; remote people as RemoteActor rows.
 */

export type PostTarget =
  | { kind: 'local'; postId: string; authorId: string }
  | {
      kind: 'remote';
      domain: string;
      /** The post's id on its node. */
      remotePostId: string;
      apId: string;
      /** The local copy row, when there is one already. */
      copyId: string | null;
    };

/** A remote post with its copy row, made if needed. */
export interface RemotePost {
  domain: string;
  remotePostId: string;
  apId: string;
  copyId: string;
  /** The author as the copy knows them. */
  author: { handle: string; domain: string } | null;
}

const notFound = (id: string) => refuse('POST_NOT_FOUND', `There is no post ${id}.`);

export function createTargetResolver(deps: Omit<ActionDeps, 'delivery'>) {
  const { db, clock, config, peers, logger, reads } = deps;
  const prisma = db.prisma;
  const self = config.domain;

  /** A post id as the app uses it: our UUID, or `swarm:{domain}:{postId}`. */
  async function post(id: string): Promise<Result<PostTarget, Refusal>> {
    if (id.startsWith('swarm:')) {
      const parsed = parseSwarmPostId(id);
      if (!parsed.ok)
        return refuse('INVALID_REQUEST', `"${id}" is not a post id: ${parsed.reason}.`);
      const { domain, postId } = parsed.value;
      if (domain === self) return local(postId, id);
      const apId = formatSwarmPostId(parsed.value);
      const copy = await prisma.post.findUnique({ where: { apId }, select: { id: true } });
      return ok({ kind: 'remote', domain, remotePostId: postId, apId, copyId: copy?.id ?? null });
    }
    return local(id, id);
  }

  async function local(postId: string, shown: string): Promise<Result<PostTarget, Refusal>> {
    if (!uuidSchema.safeParse(postId).success) return notFound(shown);
    const row = await prisma.post.findFirst({
      where: { id: postId, deletedAt: null },
      select: { id: true, apId: true, authorId: true, repostOfId: true },
    });
    if (!row) return notFound(shown);
    if (row.repostOfId) return local(row.repostOfId, shown); // a repost stands for its original
    if (row.apId) {
      // A copy of a remote post, named by its row id: the target is the original.
      const parsed = parseSwarmPostId(row.apId);
      if (!parsed.ok) return notFound(shown);
      return ok({
        kind: 'remote',
        domain: parsed.value.domain,
        remotePostId: parsed.value.postId,
        apId: row.apId,
        copyId: row.id,
      });
    }
    if (!row.authorId) return notFound(shown);
    return ok({ kind: 'local', postId: row.id, authorId: row.authorId });
  }

  /** What a copy row holds besides its author. */
  interface CopyFields {
    content: string;
    isNsfw: boolean;
    likesCount: number;
    repostsCount: number;
    repliesCount: number;
    linkPreviewUrl: string | null;
    createdAt: Date;
    media: { url: string; mimeType: string; altText: string }[];
  }

  /** Writes the copy row (upsert by apId: a concurrent action may have made it first). */
  async function storeCopy(apId: string, author: RemoteActorFields, fields: CopyFields) {
    const now = clock.now();
    return prisma.$transaction(async (tx) => {
      const stored = await upsertRemoteActor(tx, author, { now });
      const { media, ...columns } = fields;
      const created = await tx.post.createManyAndReturn({
        data: [{ apId, remoteAuthorId: stored.id, ...columns }],
        skipDuplicates: true, // a concurrent action made the copy first
        select: { id: true },
      });
      const id = created[0]?.id;
      if (!id) {
        const winner = await tx.post.findUniqueOrThrow({ where: { apId }, select: { id: true } });
        return winner.id;
      }
      if (media.length > 0) {
        await tx.mediaItem.createMany({
          data: media.map((item, position) => ({ postId: id, ...item, position })),
        });
      }
      return id;
    });
  }

  /**
   * The copy row of a remote post, fetched from its node when there is none (a 404 there: no
   * such post). When the node cannot be asked now, the first action is still recorded (its
   * delivery retried): the copy is made from the post as a read just showed it (`seen`), or
   * else as a placeholder (no content) by the author the caller names (`authorAddress`, the
   * post card's author; only one on the post's own node), corrected by the next read of the
   * post. With neither, it is refused (502/504 at the edge) and nothing changes.
   */
  async function remoteCopy(
    target: Extract<PostTarget, { kind: 'remote' }>,
    hint: { authorAddress?: string | null | undefined } = {},
  ): Promise<Result<RemotePost, Refusal>> {
    const base = { domain: target.domain, remotePostId: target.remotePostId, apId: target.apId };
    const hinted = hint.authorAddress ? parseHandleAddress(hint.authorAddress) : null;
    if (hinted && !hinted.ok) {
      return refuse(
        'INVALID_REQUEST',
        `"${hint.authorAddress}" is not an author address (handle@domain): ${hinted.reason}.`,
      );
    }
    if (target.copyId) {
      const copy = await prisma.post.findUnique({
        where: { id: target.copyId },
        select: { remoteAuthor: { select: { handle: true, nodeDomain: true } } },
      });
      const author = copy?.remoteAuthor
        ? { handle: copy.remoteAuthor.handle, domain: copy.remoteAuthor.nodeDomain }
        : null;
      return ok({ ...base, copyId: target.copyId, author });
    }
    const answer = await peers.getJson(
      target.domain,
      SWARM_PATHS.post(target.remotePostId),
      z.unknown(),
    );
    if (!answer.ok) {
      const error = answer.reason;
      if (error.kind === 'http' && error.status === 404) {
        return refuse(
          'POST_NOT_FOUND',
          `There is no post ${target.remotePostId} on ${target.domain}.`,
        );
      }
      const reason = describePeerError(error);
      const shown = reads?.seen.lookup(target.apId);
      if (shown?.author.isRemote) {
        logger.info({ post: target.apId, reason }, 'post node down; copy made from the post shown');
        const author = shown.author;
        const copyId = await storeCopy(
          target.apId,
          {
            handle: author.handle,
            domain: author.domain,
            displayName: author.displayName,
            avatarUrl: author.avatarUrl ?? '',
            bio: '',
          },
          {
            content: shown.content,
            isNsfw: shown.isNsfw,
            likesCount: shown.likesCount,
            repostsCount: shown.repostsCount,
            repliesCount: shown.repliesCount,
            linkPreviewUrl: shown.linkPreview?.url ?? null,
            createdAt: new Date(shown.createdAt),
            media: shown.media.map(({ url, mimeType, altText }) => ({ url, mimeType, altText })),
          },
        );
        return ok({ ...base, copyId, author: { handle: author.handle, domain: author.domain } });
      }
      // A hint can name only someone on the post's own node: it cannot point a copy elsewhere.
      if (hinted?.ok && hinted.value.domain === target.domain) {
        logger.info(
          { post: target.apId, author: hint.authorAddress, reason },
          'post node down; placeholder copy by the hinted author',
        );
        const { handle, domain } = hinted.value;
        // displayName '' keeps a stored actor's name (upsert) and shows the handle otherwise.
        const copyId = await storeCopy(
          target.apId,
          { handle, domain, displayName: '', avatarUrl: '', bio: '' },
          {
            content: '',
            isNsfw: false,
            likesCount: 0,
            repostsCount: 0,
            repliesCount: 0,
            linkPreviewUrl: null,
            createdAt: clock.now(),
            media: [],
          },
        );
        return ok({ ...base, copyId, author: { handle, domain } });
      }
      return refuse(
        error.kind === 'timeout' ? 'PEER_TIMEOUT' : 'PEER_UNAVAILABLE',
        `${reason} The post could not be looked up: open it again, or try later.`,
      );
    }
    const parsed = parsePeerSinglePost(answer.value, target.domain);
    if (!parsed.ok) {
      return refuse(
        'PEER_UNAVAILABLE',
        `${target.domain} sent a post this node could not read (${parsed.reason}).`,
      );
    }
    const post = parsed.value;
    let handle = post.author.handle;
    let domain = target.domain;
    if (handle.includes('@')) {
      const address = parseHandleAddress(handle);
      if (address.ok) ({ handle, domain } = address.value);
    }
    const copyId = await storeCopy(
      target.apId,
      {
        handle,
        domain,
        displayName: post.author.displayName,
        avatarUrl: post.author.avatarUrl,
        bio: '',
      },
      {
        content: post.content,
        isNsfw: post.isNsfw || post.author.isNsfw,
        likesCount: post.likesCount,
        repostsCount: post.repostsCount,
        repliesCount: post.repliesCount,
        linkPreviewUrl: post.linkPreviewUrl,
        createdAt: new Date(post.createdAt),
        media: post.media.map((item) => ({
          url: item.url,
          mimeType: item.mimeType || guessMimeType(item.url),
          altText: item.altText,
        })),
      },
    );
    return ok({ ...base, copyId, author: { handle, domain } });
  }

  /**
   * A person by address (`alice`, `bob@beta.example`). A remote one is looked up on their node
   * (`GET /api/swarm/users/<handle>?limit=0`) and stored as a RemoteActor (did pinned on first
   * sight). When the node cannot be asked now, a person already stored here is used as stored,
   * or one the handle registry places on that node; a stranger is refused (502/504 at the edge)
   * and nothing changes.
   */
  async function person(
    address: string,
  ): Promise<
    Result<
      | { kind: 'local'; userId: string; handle: string }
      | { kind: 'remote'; remoteActorId: string; actorUrl: string; handle: string; domain: string },
      Refusal
    >
  > {
    const parsed = parseProfileAddress(address, self);
    if (!parsed.ok)
      return refuse('INVALID_REQUEST', `"${address}" is not an address: ${parsed.reason}.`);
    if (parsed.value.local) {
      const user = await prisma.user.findUnique({
        where: { handle: parsed.value.handle },
        select: { id: true, handle: true },
      });
      if (!user)
        return refuse('USER_NOT_FOUND', `There is no user ${parsed.value.handle} on this node.`);
      return ok({ kind: 'local', userId: user.id, handle: user.handle });
    }
    const { handle: asked, domain } = parsed.value;
    const answer = await peers.getJson(
      domain,
      `${SWARM_PATHS.user(asked)}?limit=0`,
      swarmUserResponseSchema,
    );
    if (!answer.ok) {
      if (answer.reason.kind === 'http' && answer.reason.status === 404) {
        return refuse('USER_NOT_FOUND', `There is no user ${asked} on ${domain}.`);
      }
      // Someone seen here before (a profile read, an interaction) is followed now and the
      // follow is delivered when their node is back; so is someone the handle registry (gossip)
      // places on that node; a stranger needs their node to answer.
      const known =
        (await prisma.remoteActor.findFirst({
          where: { nodeDomain: domain, handle: { equals: asked, mode: 'insensitive' } },
          select: { id: true, actorUrl: true, handle: true },
        })) ?? (await registered(asked, domain));
      if (!known) {
        return refuse(
          answer.reason.kind === 'timeout' ? 'PEER_TIMEOUT' : 'PEER_UNAVAILABLE',
          `${describePeerError(answer.reason)} ${asked}@${domain} is not known here yet and could not be looked up: try again later.`,
        );
      }
      logger.info(
        { actor: `${asked}@${domain}`, reason: describePeerError(answer.reason) },
        'remote profile not fetched; following the known actor',
      );
      return ok({
        kind: 'remote',
        remoteActorId: known.id,
        actorUrl: known.actorUrl,
        handle: known.handle,
        domain,
      });
    }
    const { profile } = answer.value;
    // The node's spelling of the handle when it is the one asked for (peers may differ in case).
    const handle = profile.handle.toLowerCase() === asked.toLowerCase() ? profile.handle : asked;
    const fields: RemoteActorFields = {
      handle,
      domain,
      displayName: profile.displayName,
      avatarUrl: profile.avatarUrl,
      bio: profile.bio,
    };
    const stored = await upsertRemoteActor(prisma, fields, {
      now: clock.now(),
      didToPin: profile.did,
      fetched: true,
    });
    return ok({
      kind: 'remote',
      remoteActorId: stored.id,
      actorUrl: stored.actorUrl,
      handle: fields.handle,
      domain,
    });
  }

  /**
   * A remote actor row for `handle@domain` as the handle registry lists it (no did pinned: a
   * registry entry is gossip, not the node's own word; the first profile read pins it).
   */
  async function registered(handle: string, domain: string) {
    const entry = await prisma.handleRegistryEntry.findFirst({
      where: { nodeDomain: domain, handle: { equals: handle, mode: 'insensitive' } },
      select: { handle: true },
    });
    if (!entry) return null;
    const fields = { handle: entry.handle, domain, displayName: '', avatarUrl: '', bio: '' };
    const stored = await upsertRemoteActor(prisma, fields, { now: clock.now() });
    return { id: stored.id, actorUrl: stored.actorUrl, handle: entry.handle };
  }

  /**
   * A person by address, without asking their node: a local user, or the remote actor stored
   * here under that address (null `actorUrl` when there is none). For undoing a follow.
   */
  async function known(
    address: string,
  ): Promise<
    Result<
      | { kind: 'local'; userId: string; handle: string }
      | { kind: 'remote'; actorUrl: string | null; handle: string; domain: string },
      Refusal
    >
  > {
    const parsed = parseProfileAddress(address, self);
    if (!parsed.ok)
      return refuse('INVALID_REQUEST', `"${address}" is not an address: ${parsed.reason}.`);
    if (parsed.value.local) return person(address);
    const { handle, domain } = parsed.value;
    const actor = await prisma.remoteActor.findFirst({
      where: { nodeDomain: domain, handle: { equals: handle, mode: 'insensitive' } },
      select: { actorUrl: true, handle: true },
    });
    return ok({
      kind: 'remote',
      actorUrl: actor?.actorUrl ?? null,
      handle: actor?.handle ?? handle,
      domain,
    });
  }

  return { post, remoteCopy, person, known };
}

export type TargetResolver = ReturnType<typeof createTargetResolver>;
