import {
  FOLLOW_LIST_LIMIT,
  SWARM_PATHS,
  err,
  formatTimestamp,
  ok,
  peerFollowersResponseSchema,
  peerFollowingResponseSchema,
  utf8Decode,
  utf8Encode,
  type FollowListEntry,
  type FollowListQuery,
  type Result,
} from '@swarm/contract';
import { localActorKey, type Db, type Prisma } from '@swarm/db';
import type { Clock } from '../clock.ts';
import type { NodeConfig } from '../config.ts';
import type { ContentError } from '../content/content.service.ts';
import { actorView, wireActor, type Viewer } from '../feeds/post-views.ts';
import { gatedReadError, readError, type ReadError } from '../feeds/read-errors.ts';
import type { VisitorFetchGate } from '../peers/index.ts';
import type { RegistryService } from '../registry/index.ts';
import type { ActorView } from '../views/index.ts';
import { SHOWN_ACCOUNT, listedFollowSide, viewerFilter } from '../views/visibility.ts';
import { parseProfileAddress } from './profile.service.ts';

/**
 * Followers and following lists (issue #14): served to peers as
 * `GET /api/swarm/users/[handle]/followers|following` (docs/protocol.md "Follower lists"), and
 * shown to people for local users (from the database) and remote ones (read from their node's
 * same endpoints). Only accepted follows are listed; pages are bounded (at most 100 entries)
 * and paged by an opaque cursor over (follow time, id), newest first. Who may be seen
 * (views/visibility.ts): a hidden user has no lists, hidden and moved people are not listed, and
 * people see no one they muted or blocked (nor who blocked them).
 */

export type FollowListKind = 'followers' | 'following';

/** A person in a list, as pages show them. */
export interface PersonView extends ActorView {
  bio: string;
  isBot: boolean;
}

export interface FollowListPage {
  people: PersonView[];
  /** Pass back as `cursor` for the next page; null on the last one. */
  nextCursor: string | null;
  /** The list came from another node. */
  isSwarm: boolean;
}

export interface FollowListService {
  /** The swarm endpoint's answer for a local user (404 value for an unknown handle). */
  serve(
    kind: FollowListKind,
    handle: string,
    query: FollowListQuery,
  ): Promise<
    Result<
      { entries: FollowListEntry[]; nodeDomain: string; timestamp: string; nextCursor?: string },
      ContentError
    >
  >;
  /** A list for people: `alice` (here) or `bob@beta.example` (asked of beta.example). */
  list(
    viewer: Viewer | null,
    kind: FollowListKind,
    query: { address: string; cursor?: string | undefined; limit?: number | undefined },
  ): Promise<Result<FollowListPage, ReadError>>;
}

export interface FollowListDeps {
  db: Db;
  clock: Clock;
  config: Pick<NodeConfig, 'domain'>;
  visitors: VisitorFetchGate;
  registry: Pick<RegistryService, 'isBlocked'>;
}

const personSelect = {
  handle: true,
  displayName: true,
  avatarUrl: true,
  bio: true,
} as const;

const followRowSelect = {
  id: true,
  createdAt: true,
  followerUser: { select: { ...personSelect, isBot: true } },
  followerRemoteActor: { select: { ...personSelect, nodeDomain: true } },
  followeeUser: { select: { ...personSelect, isBot: true } },
  followeeRemoteActor: { select: { ...personSelect, nodeDomain: true } },
} as const satisfies Prisma.FollowSelect;

export function encodeFollowCursor(createdAt: Date, id: string): string {
  return Buffer.from(utf8Encode(`${createdAt.toISOString()}|${id}`)).toString('base64url');
}

export function decodeFollowCursor(cursor: string): { createdAt: Date; id: string } | null {
  try {
    const text = utf8Decode(Buffer.from(cursor, 'base64url'));
    const [at, id, ...rest] = text.split('|');
    const createdAt = new Date(at ?? '');
    if (rest.length || !id || Number.isNaN(createdAt.getTime())) return null;
    if (!/^[0-9a-f-]{36}$/i.test(id)) return null;
    return { createdAt, id };
  } catch {
    return null;
  }
}

export function createFollowListService(deps: FollowListDeps): FollowListService {
  const { db, clock, config, visitors, registry } = deps;
  const prisma = db.prisma;
  const self = config.domain;

  /** One page of accepted follows of/by a local user, as wire entries plus the next cursor. */
  async function page(
    kind: FollowListKind,
    userId: string,
    limit: number,
    cursor: { createdAt: Date; id: string } | null,
  ) {
    const key = localActorKey(userId);
    const where: Prisma.FollowWhereInput = {
      state: 'accepted',
      ...(kind === 'followers' ? { followeeKey: key } : { followerKey: key }),
      ...listedFollowSide(kind),
      ...(cursor
        ? {
            OR: [
              { createdAt: { lt: cursor.createdAt } },
              { createdAt: cursor.createdAt, id: { lt: cursor.id } },
            ],
          }
        : {}),
    };
    const rows =
      limit === 0
        ? []
        : await prisma.follow.findMany({
            where,
            orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
            take: limit + 1,
            select: followRowSelect,
          });
    const more = rows.length > limit;
    const shown = rows.slice(0, limit);
    const entries = shown.flatMap((row): FollowListEntry[] => {
      const user = kind === 'followers' ? row.followerUser : row.followeeUser;
      const remote = kind === 'followers' ? row.followerRemoteActor : row.followeeRemoteActor;
      if (user) {
        return [
          {
            handle: user.handle,
            displayName: user.displayName || user.handle,
            avatarUrl: user.avatarUrl ?? '',
            bio: user.bio,
            isBot: user.isBot,
            isRemote: false,
          },
        ];
      }
      if (remote) {
        return [
          {
            handle: `${remote.handle}@${remote.nodeDomain}`,
            displayName: remote.displayName || remote.handle,
            avatarUrl: remote.avatarUrl ?? '',
            bio: remote.bio,
            isBot: false,
            isRemote: true,
          },
        ];
      }
      return [];
    });
    const last = shown[shown.length - 1];
    const nextCursor = more && last ? encodeFollowCursor(last.createdAt, last.id) : undefined;
    return { entries, nextCursor };
  }

  /** Wire entries from the node `domain` as people, less those the viewer does not see. */
  async function people(
    viewer: Viewer | null,
    entries: readonly FollowListEntry[],
    domain: string,
  ): Promise<PersonView[]> {
    const filter = await viewerFilter(prisma, { viewer, self, operatorMutes: false });
    return entries.flatMap((entry) => {
      const actor = wireActor(
        { handle: entry.handle, displayName: entry.displayName, avatarUrl: entry.avatarUrl },
        domain,
        self,
      );
      return actor && !filter.hides({ author: actor })
        ? [{ ...actor, bio: entry.bio, isBot: entry.isBot }]
        : [];
    });
  }

  /** A local user who may be seen (a hidden one has no lists, as if unknown). */
  async function localUser(handle: string) {
    return prisma.user.findFirst({
      where: { handle: handle.toLowerCase(), ...SHOWN_ACCOUNT },
      select: { id: true },
    });
  }

  return {
    async serve(kind, handle, query) {
      const user = await localUser(handle);
      if (!user) return err({ code: 'USER_NOT_FOUND', message: `No user ${handle} on this node.` });
      const cursor = query.cursor === undefined ? null : decodeFollowCursor(query.cursor);
      // A cursor we cannot read is an empty page, not an error: it may be an old node's.
      const result =
        query.cursor !== undefined && !cursor
          ? { entries: [], nextCursor: undefined }
          : await page(kind, user.id, query.limit, cursor);
      return ok({
        entries: result.entries,
        nodeDomain: self,
        timestamp: formatTimestamp(clock.now()),
        ...(result.nextCursor ? { nextCursor: result.nextCursor } : {}),
      });
    },

    async list(viewer, kind, query) {
      const parsed = parseProfileAddress(query.address, self);
      if (!parsed.ok) return readError('INVALID_REQUEST', `Not a valid address: ${parsed.reason}.`);
      const limit = Math.min(
        Math.max(1, Math.trunc(query.limit ?? FOLLOW_LIST_LIMIT.default)),
        FOLLOW_LIST_LIMIT.max,
      );
      if (query.cursor !== undefined && !/^[A-Za-z0-9_-]{1,200}$/.test(query.cursor)) {
        return readError('INVALID_REQUEST', 'Not a valid page cursor.');
      }
      const address = parsed.value;
      if (address.local) {
        const user = await localUser(address.handle);
        if (!user) {
          return readError('USER_NOT_FOUND', `There is no user ${address.handle} on this node.`);
        }
        const cursor = query.cursor === undefined ? null : decodeFollowCursor(query.cursor);
        if (query.cursor !== undefined && !cursor) {
          return readError('INVALID_REQUEST', 'Not a valid page cursor.');
        }
        const result = await page(kind, user.id, limit, cursor);
        return ok({
          people: await people(viewer, result.entries, self),
          nextCursor: result.nextCursor ?? null,
          isSwarm: false,
        });
      }
      const { domain, handle } = address;
      if (await registry.isBlocked(domain)) {
        return readError('PEER_UNAVAILABLE', `This node does not talk to ${domain} (blocked).`);
      }
      const path = `${kind === 'followers' ? SWARM_PATHS.followers(handle) : SWARM_PATHS.following(handle)}?limit=${limit}${query.cursor ? `&cursor=${encodeURIComponent(query.cursor)}` : ''}`;
      const notFound = {
        code: 'USER_NOT_FOUND' as const,
        message: `There is no user ${handle} on ${domain}, or it does not list ${kind}.`,
      };
      if (kind === 'followers') {
        const answer = await visitors.getJson(domain, path, peerFollowersResponseSchema, {
          anonymous: viewer === null,
        });
        if (!answer.ok) return gatedReadError(answer, domain, notFound);
        return ok({
          people: await people(viewer, answer.value.followers.slice(0, limit), domain),
          nextCursor: answer.value.nextCursor ?? null,
          isSwarm: true,
        });
      }
      const answer = await visitors.getJson(domain, path, peerFollowingResponseSchema, {
        anonymous: viewer === null,
      });
      if (!answer.ok) return gatedReadError(answer, domain, notFound);
      return ok({
        people: await people(viewer, answer.value.following.slice(0, limit), domain),
        nextCursor: answer.value.nextCursor ?? null,
        isSwarm: true,
      });
    },
  };
}

/** Exposed for views that need a local person (search results). */
export function localPerson(
  user: {
    handle: string;
    displayName: string;
    avatarUrl: string | null;
    bio: string;
    isBot: boolean;
  },
  self: string,
): PersonView {
  return {
    ...actorView({ ...user, domain: self }, self),
    bio: user.bio,
    isBot: user.isBot,
  };
}
