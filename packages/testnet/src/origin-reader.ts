import { z } from 'zod';
import { originSchemeFor } from './origin-signing.ts';

/** The outcome of one of its reads of a peer: the value its reader makes, or why it failed. */
export type OriginRead<T> = { ok: true; value: T } | { ok: false; status: number; error: string };

/**
 * Its reads of another node (§6, §7), with what each of its readers needs from the answer
 * (anything else is ignored). A failure is what its user would get: an error, or, for the
 * user-facing posts list, `200 {posts: [], nextCursor: null}` (the `ok: false` here).
 */
export interface OriginReader {
  /** `GET /api/swarm/users/{h}?limit=0`, mapped to its `{user}` of `GET /api/users/h@domain`. */
  user(domain: string, handle: string): Promise<OriginRead<Record<string, unknown>>>;
  /** `GET /api/users/{h}/posts?limit=` (user-facing!), ids re-mapped to `swarm:{domain}:{id}`. */
  userPosts(domain: string, handle: string, limit?: number): Promise<OriginRead<OriginReadPost[]>>;
  /** `GET /api/swarm/posts/{id}`: it reads `{ post, replies }`. */
  post(
    domain: string,
    id: string,
  ): Promise<OriginRead<{ post: OriginReadPost; replies: Record<string, unknown>[] }>>;
  /** `GET /api/swarm/timeline`. */
  timeline(domain: string): Promise<OriginRead<OriginReadPost[]>>;
}

/** What its readers dereference: `author` must be an object with a handle (a string crashes it). */
const readPostSchema = z.looseObject({
  id: z.string(),
  content: z.string(),
  createdAt: z.string(),
  author: z.looseObject({
    handle: z.string(),
    displayName: z.string().nullish(),
    avatarUrl: z.string().nullish(),
  }),
});
export type OriginReadPost = z.output<typeof readPostSchema>;

const readSchemas = {
  user: z.looseObject({
    profile: z.looseObject({
      handle: z.string(),
      displayName: z.string().nullish(),
      bio: z.string().nullish(),
      avatarUrl: z.string().nullish(),
      headerUrl: z.string().nullish(),
      website: z.string().nullish(),
      followersCount: z.number(),
      followingCount: z.number(),
      postsCount: z.number(),
      createdAt: z.string(),
      isBot: z.boolean().optional(),
      did: z.string().optional(),
      publicKey: z.string().optional(),
    }),
  }),
  userPosts: z.looseObject({ posts: z.array(readPostSchema) }),
  post: z.looseObject({ post: readPostSchema, replies: z.array(z.looseObject({})) }),
  timeline: z.looseObject({ posts: z.array(readPostSchema) }),
};

/** One GET of its readers (§6: localhost rule, 10 s), parsed with what the reader needs. */
async function readJson<S extends z.ZodType>(
  target: string,
  path: string,
  schema: S,
): Promise<OriginRead<z.output<S>>> {
  let answer: Response;
  try {
    answer = await fetch(`${originSchemeFor(target)}://${target}${path}`, {
      signal: AbortSignal.timeout(10_000),
    });
  } catch (error) {
    return { ok: false, status: 0, error: error instanceof Error ? error.message : 'fetch' };
  }
  if (!answer.ok) return { ok: false, status: answer.status, error: await answer.text() };
  const parsed = schema.safeParse(await answer.json().catch(() => undefined));
  return parsed.success
    ? { ok: true, value: parsed.data }
    : { ok: false, status: answer.status, error: JSON.stringify(parsed.error.issues) };
}

/** Its readers of other nodes (they need no state of the peer). */
export function createOriginReader(): OriginReader {
  return {
    async user(target, handle) {
      const got = await readJson(
        target,
        `/api/swarm/users/${encodeURIComponent(handle)}?limit=0`,
        readSchemas.user,
      );
      if (!got.ok) return got;
      const p = got.value.profile;
      return {
        ok: true,
        value: {
          id: `swarm:${target}:${p.handle}`,
          handle: `${p.handle}@${target}`,
          displayName: p.displayName,
          bio: p.bio,
          avatarUrl: p.avatarUrl,
          headerUrl: p.headerUrl,
          followersCount: p.followersCount,
          followingCount: p.followingCount,
          postsCount: p.postsCount,
          website: p.website,
          createdAt: p.createdAt,
          isRemote: true,
          isSwarm: true,
          nodeDomain: target,
          isBot: p.isBot ?? false,
          did: p.did,
        },
      };
    },
    async userPosts(target, handle, limit = 20) {
      const got = await readJson(
        target,
        `/api/users/${encodeURIComponent(handle)}/posts?limit=${limit}`,
        readSchemas.userPosts,
      );
      if (!got.ok) return got;
      return {
        ok: true,
        value: got.value.posts.map((p) => ({ ...p, id: `swarm:${target}:${p.id}` })),
      };
    },
    post: (target, id) =>
      readJson(target, `/api/swarm/posts/${encodeURIComponent(id)}`, readSchemas.post),
    async timeline(target) {
      const got = await readJson(target, '/api/swarm/timeline?limit=20', readSchemas.timeline);
      return got.ok ? { ok: true, value: got.value.posts } : got;
    },
  };
}
