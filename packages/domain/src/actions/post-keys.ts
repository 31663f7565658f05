import { ok, refuse, type Refusal, type Result } from '@swarm/contract';
import type { Db } from '@swarm/db';
import type { Clock } from '../clock.ts';

/**
 * An app's `Idempotency-Key` of a new post (docs/clients.md "Statuses"): the same key from the
 * same person within the hour answers the post the first request made, whichever replica of the
 * node answers the retry, so every replica keeps the keys in the database
 * (`post_idempotency_keys`, unique per person and key):
 *
 * - the first request claims the key (an insert that only one request can make), makes the post
 *   and writes its id to the row; a post that fails (a refusal or an error) deletes the row, so
 *   the key is free again;
 * - a retry finds the row: with its post, it answers that post; while the first request is
 *   still making it, the retry waits for it (at most `waitMs`), then answers 409
 *   `IDEMPOTENCY_CONFLICT`. A claim without a post after `POST_KEY_ABANDONED_MS` is the claim of a
 *   process that ended mid-post: the retry takes the key over.
 *
 * Rows past the hour count as absent and are deleted by `sweep` (the gateway's housekeeping),
 * so the table holds at most the posts made with a key in the last hours.
 */
export interface PostKeys {
  /** The post `create` makes (its row id), once per person and key within the hour. */
  once(
    userId: string,
    key: string,
    create: () => Promise<Result<string, Refusal>>,
  ): Promise<Result<string, Refusal>>;
  /** Deletes the keys past the hour; answers how many. */
  sweep(): Promise<number>;
}

export const POST_KEY_TTL_MS = 60 * 60 * 1000;
/** Longer keys are refused (the client API answers 422; the table checks it too). */
export const POST_KEY_MAX_CHARS = 200;
/** How long a retry waits for the first request that holds its key (real time). */
export const POST_KEY_WAIT_MS = 10_000;
/** A claim this old without its post was left by a process that ended mid-post. */
export const POST_KEY_ABANDONED_MS = 2 * 60 * 1000;

/** The pause between looks at a key another request holds: short first, then 200 ms. */
const pause = (attempt: number) =>
  new Promise((resolve) => setTimeout(resolve, Math.min(200, 20 * 2 ** attempt)));

export function createPostKeys(deps: { db: Db; clock: Clock; waitMs?: number }): PostKeys {
  const { prisma } = deps.db;
  const waitMs = deps.waitMs ?? POST_KEY_WAIT_MS;

  /** The key's row if this request could claim it (nobody holds it). */
  async function claim(userId: string, key: string) {
    const rows = await prisma.postIdempotencyKey.createManyAndReturn({
      data: [{ userId, key, createdAt: deps.clock.now() }],
      skipDuplicates: true,
      select: { id: true },
    });
    return rows[0]?.id ?? null;
  }

  async function makePost(id: string, create: () => Promise<Result<string, Refusal>>) {
    const free = () => prisma.postIdempotencyKey.deleteMany({ where: { id, postId: null } });
    let made: Result<string, Refusal>;
    try {
      made = await create();
    } catch (error) {
      await free();
      throw error;
    }
    if (made.ok) {
      await prisma.postIdempotencyKey.updateMany({ where: { id }, data: { postId: made.value } });
    } else {
      await free();
    }
    return made;
  }

  return {
    async once(userId, key, create) {
      const deadline = Date.now() + waitMs;
      // Each turn either claims the key, answers its post, or finds it held and waits; a key
      // freed or expired meanwhile is claimed again on the next turn (bounded: others may race).
      for (let attempt = 0; attempt < 1_000; attempt += 1) {
        const claimed = await claim(userId, key);
        if (claimed) return makePost(claimed, create);
        const held = await prisma.postIdempotencyKey.findUnique({
          where: { userId_key: { userId, key } },
          select: { id: true, postId: true, createdAt: true },
        });
        if (!held) continue; // freed meanwhile (its post failed): claim it now
        const age = deps.clock.now().getTime() - held.createdAt.getTime();
        if (age >= POST_KEY_TTL_MS || (held.postId === null && age >= POST_KEY_ABANDONED_MS)) {
          // Past the hour, or abandoned: gone, as far as this request is concerned.
          await prisma.postIdempotencyKey.deleteMany({
            where: { id: held.id, postId: held.postId },
          });
          continue;
        }
        if (held.postId !== null) return ok(held.postId);
        if (Date.now() >= deadline) break;
        await pause(attempt);
      }
      return refuse(
        'IDEMPOTENCY_CONFLICT',
        'A request with this Idempotency-Key is still being processed; try again shortly',
      );
    },

    async sweep() {
      const before = new Date(deps.clock.now().getTime() - POST_KEY_TTL_MS);
      const { count } = await prisma.postIdempotencyKey.deleteMany({
        where: { createdAt: { lt: before } },
      });
      return count;
    },
  };
}
