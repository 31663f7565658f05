import {
  findHashtags,
  normaliseHashtag,
  ok,
  parseHandleAddress,
  type Result,
} from '@swarm/contract';
import type { Db } from '@swarm/db';
import type { NodeConfig } from '../config.ts';
import {
  actorView,
  postViewSelect,
  rowToPostView,
  withViewerState,
  type Viewer,
} from '../feeds/post-views.ts';
import { readError, type ReadError } from '../feeds/read-errors.ts';
import {
  LISTED_ACCOUNT,
  LISTED_REMOTE_ACTOR,
  viewerFilter,
  type ViewerFilter,
} from '../views/visibility.ts';
import { postSearchSql, tagCountsSql, tagPageSql } from '../persistence/search.sql.ts';
import { localPerson, type PersonView } from '../profiles/follow-lists.ts';
import type { ProfileService } from '../profiles/profile.service.ts';
import type { PostView } from '../views/index.ts';

/**
 * One search box (issue #14, docs/decisions.md "Search and tags"):
 * - people: local users by handle prefix and name, people of other nodes this node knows
 *   (remote actors) and the swarm's handle registry by handle prefix, and an exact
 *   `handle@domain` looked up on its node;
 * - posts this node holds (its own and the copies of other nodes' posts), public ones, by
 *   Postgres full-text search (`search_vector`, GIN index; every word of the query must match,
 *   each as a prefix), newest first;
 * - hashtags: the tag the query names, with its post count, and the tags of the posts found.
 * A tag page lists the public posts with that tag that this node holds, newest first.
 * Every part shows only who may be seen (views/visibility.ts): listed accounts and their posts,
 * less the viewer's mutes and blocks.
 * Queries are cleaned, not refused: what is not a word is ignored, so garbage finds nothing.
 */

export const SEARCH_LIMITS = {
  queryChars: 200,
  /** Words of a query used for posts (the rest is ignored). */
  terms: 8,
  termChars: 64,
  people: 20,
  posts: 20,
  tags: 10,
  /** Tag counts stop here ("1000+"). */
  tagCount: 1000,
  tagPage: { default: 20, max: 50 },
} as const;

export interface TagCount {
  tag: string;
  /** Posts with the tag, at most `SEARCH_LIMITS.tagCount`. */
  count: number;
}

export interface SearchResults {
  query: string;
  people: PersonView[];
  posts: PostView[];
  tags: TagCount[];
  /** The `handle@domain` asked for could not be looked up: why (the rest still answers). */
  lookupError: string | null;
}

export interface TagPage {
  tag: string;
  posts: PostView[];
  /** `before` of the next (older) page; null on the last one. */
  nextBefore: string | null;
}

export interface SearchService {
  search(viewer: Viewer | null, query: { q: string }): Promise<Result<SearchResults, ReadError>>;
  tag(
    viewer: Viewer | null,
    query: { tag: string; before?: string | undefined; limit?: number | undefined },
  ): Promise<Result<TagPage, ReadError>>;
}

export interface SearchServiceDeps {
  db: Db;
  config: Pick<NodeConfig, 'domain'>;
  profiles: Pick<ProfileService, 'get'>;
}

/** The words of a query as a `to_tsquery('simple', …)` text: `'word':* & 'other':*`. */
export function postSearchQuery(q: string): string | null {
  const words = (q.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])
    .filter((word) => word.length <= SEARCH_LIMITS.termChars)
    .slice(0, SEARCH_LIMITS.terms);
  if (words.length === 0) return null;
  return [...new Set(words)].map((word) => `'${word}':*`).join(' & ');
}

export function createSearchService(deps: SearchServiceDeps): SearchService {
  const { db, config, profiles } = deps;
  const prisma = db.prisma;
  const self = config.domain;

  /** Whom the viewer does not want to see (their mutes and blocks, and who blocked them). */
  const filterFor = (viewer: Viewer | null) =>
    viewerFilter(prisma, { viewer, self, operatorMutes: false });

  async function views(
    viewer: Viewer | null,
    ids: readonly string[],
    filter: ViewerFilter,
  ): Promise<PostView[]> {
    if (ids.length === 0) return [];
    const rows = await prisma.post.findMany({
      where: { id: { in: [...ids] } },
      select: postViewSelect,
    });
    const byId = new Map(rows.map((row) => [row.id, row]));
    const list = ids.flatMap((id) => {
      const row = byId.get(id);
      const view = row ? rowToPostView(row, self) : null;
      return view && !filter.hides(view) ? [view] : [];
    });
    return withViewerState(prisma, viewer, list);
  }

  async function findPosts(
    viewer: Viewer | null,
    q: string,
    filter: ViewerFilter,
  ): Promise<PostView[]> {
    const tsquery = postSearchQuery(q);
    if (!tsquery) return [];
    const rows = await prisma.$queryRaw<{ id: string }[]>(
      postSearchSql(tsquery, SEARCH_LIMITS.posts),
    );
    return views(
      viewer,
      rows.map((row) => row.id),
      filter,
    );
  }

  /** Posts per tag (each at most `SEARCH_LIMITS.tagCount`), in one query for all of them. */
  async function tagCounts(tags: readonly string[]): Promise<Map<string, number>> {
    if (tags.length === 0) return new Map();
    const list = [...tags];
    const rows = await prisma.$queryRaw<{ tag: string; n: number }[]>(
      tagCountsSql(list, SEARCH_LIMITS.tagCount),
    );
    return new Map(rows.map((row) => [row.tag, row.n]));
  }

  async function findPeople(text: string, filter: ViewerFilter): Promise<PersonView[]> {
    const word = text.replace(/^@/, '').trim();
    if (!word) return [];
    const [users, actors, handles] = await Promise.all([
      prisma.user.findMany({
        where: {
          ...LISTED_ACCOUNT,
          OR: [
            { handle: { startsWith: word.toLowerCase() } },
            { displayName: { contains: word, mode: 'insensitive' } },
          ],
        },
        orderBy: { handle: 'asc' },
        take: SEARCH_LIMITS.people,
        select: { handle: true, displayName: true, avatarUrl: true, bio: true, isBot: true },
      }),
      prisma.remoteActor.findMany({
        where: {
          ...LISTED_REMOTE_ACTOR,
          OR: [
            { handle: { startsWith: word, mode: 'insensitive' } },
            { displayName: { contains: word, mode: 'insensitive' } },
          ],
        },
        orderBy: [{ handle: 'asc' }, { nodeDomain: 'asc' }],
        take: SEARCH_LIMITS.people,
        select: { handle: true, nodeDomain: true, displayName: true, avatarUrl: true, bio: true },
      }),
      prisma.handleRegistryEntry.findMany({
        where: { handle: { startsWith: word, mode: 'insensitive' }, nodeDomain: { not: self } },
        orderBy: [{ handle: 'asc' }, { nodeDomain: 'asc' }],
        take: SEARCH_LIMITS.people,
        select: { handle: true, nodeDomain: true },
      }),
    ]);
    const found = new Map<string, PersonView>();
    const add = (person: PersonView) => {
      if (filter.hides({ author: person })) return;
      const key = `${person.handle.toLowerCase()}@${person.domain.toLowerCase()}`;
      if (!found.has(key)) found.set(key, person);
    };
    for (const user of users) add(localPerson(user, self));
    for (const actor of actors) {
      if (actor.nodeDomain === self) continue;
      add({
        ...actorView({ ...actor, domain: actor.nodeDomain }, self),
        bio: actor.bio,
        isBot: false,
      });
    }
    for (const entry of handles) {
      add({
        ...actorView(
          { handle: entry.handle, domain: entry.nodeDomain, displayName: '', avatarUrl: null },
          self,
        ),
        bio: '',
        isBot: false,
      });
    }
    return [...found.values()].slice(0, SEARCH_LIMITS.people);
  }

  return {
    async search(viewer, { q }) {
      const query = q.trim();
      if (Array.from(query).length > SEARCH_LIMITS.queryChars) {
        return readError(
          'INVALID_REQUEST',
          `A search is at most ${SEARCH_LIMITS.queryChars} characters.`,
        );
      }
      if (!query) return ok({ query, people: [], posts: [], tags: [], lookupError: null });

      // `@bob@beta.example` or `bob@beta.example`: that person, asked of their node.
      let exact: PersonView | null = null;
      let lookupError: string | null = null;
      const bare = query.replace(/^@/, '');
      const address = bare.includes('@') ? parseHandleAddress(bare) : null;
      if (address?.ok) {
        const profile = await profiles.get(viewer, { address: bare, limit: 0 });
        if (profile.ok) {
          exact = {
            ...profile.value.profile.actor,
            bio: profile.value.profile.bio,
            isBot: profile.value.profile.isBot,
          };
        } else {
          lookupError = profile.reason.message;
        }
      }
      const peopleWord = address?.ok ? address.value.handle : bare;
      const tag = normaliseHashtag(query);
      const filter = await filterFor(viewer);
      const [people, posts] = await Promise.all([
        findPeople(peopleWord, filter),
        findPosts(viewer, query, filter),
      ]);
      const merged = exact ? [exact, ...people.filter((p) => p.address !== exact.address)] : people;

      // The tag asked for, then the tags of the posts found that start like the query.
      const stem = tag ?? postSearchQuery(query)?.split("'")[1] ?? null;
      const candidates = new Set<string>(tag ? [tag] : []);
      for (const post of posts) {
        for (const found of findHashtags(post.content)) {
          if (candidates.size >= SEARCH_LIMITS.tags) break;
          if (stem && found.startsWith(stem)) candidates.add(found);
        }
      }
      const counts = await tagCounts([...candidates]);
      const tags = [...candidates].flatMap((name) => {
        const n = counts.get(name) ?? 0;
        return n > 0 ? [{ tag: name, count: n }] : [];
      });
      return ok({
        query,
        people: merged.slice(0, SEARCH_LIMITS.people),
        posts,
        tags,
        lookupError,
      });
    },

    async tag(viewer, query) {
      const tag = normaliseHashtag(query.tag);
      if (!tag) {
        return readError(
          'INVALID_REQUEST',
          'Not a hashtag: letters, digits and _ (at least one letter), at most 64 characters.',
        );
      }
      let before: Date | null = null;
      if (query.before !== undefined) {
        before = new Date(query.before);
        if (Number.isNaN(before.getTime()) || query.before.length > 40) {
          return readError('INVALID_REQUEST', '`before` must be a timestamp.');
        }
      }
      const limit = Math.min(
        Math.max(1, Math.trunc(query.limit ?? SEARCH_LIMITS.tagPage.default)),
        SEARCH_LIMITS.tagPage.max,
      );
      const rows = await prisma.$queryRaw<{ id: string; created_at: Date }[]>(
        tagPageSql(tag, before, limit + 1),
      );
      const more = rows.length > limit;
      const page = rows.slice(0, limit);
      const last = page[page.length - 1];
      return ok({
        tag,
        posts: await views(
          viewer,
          page.map((row) => row.id),
          await filterFor(viewer),
        ),
        nextBefore: more && last ? new Date(last.created_at).toISOString() : null,
      });
    },
  };
}
