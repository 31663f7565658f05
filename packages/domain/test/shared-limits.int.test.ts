import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import type pg from 'pg';
import { createTestDb } from '@swarm/db/testing';
import { createPostgresDb, type Db } from '@swarm/db';
import {
  createLogger,
  createMemoryLimits,
  createPostgresInvalidations,
  createPostgresLimits,
  createRedisInvalidations,
  createRedisLimits,
  type Clock,
  type Invalidations,
  type LimitResult,
  type Limits,
} from '../src/index.ts';

// The three stores of `Limits` give the same answers on the same clock, and two processes'
// worth of clients on one store share one budget. Postgres needs TEST_DATABASE_URL, Redis
// TEST_REDIS_URL (e.g. redis://127.0.0.1:6379); memory always runs.

const logger = createLogger('silent');

function manualClock(): Clock & { advance(ms: number): void } {
  let now = Date.parse('2026-11-22T12:00:00.000Z');
  return { now: () => new Date(now), advance: (ms) => (now += ms) };
}

interface Store {
  /** Two independent clients of the same store, as two replicas hold. */
  open(clock: Clock): Promise<[Limits, Limits]>;
  /** Two buses on the same store, when it has one. */
  buses?(): Promise<[Invalidations, Invalidations]>;
}

const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

const stores: Record<string, Store | undefined> = {
  memory: {
    async open(clock) {
      const one = createMemoryLimits({ clock });
      return [one, one];
    },
  },
  postgres: process.env.TEST_DATABASE_URL
    ? ({
        async open(clock) {
          const first = await createTestDb();
          cleanups.push(() => first.close());
          if (first.kind !== 'postgres') throw new Error('not Postgres');
          const second: Db = await createPostgresDb(first.pool.options.connectionString!, 2);
          cleanups.push(() => second.close());
          if (second.kind !== 'postgres') throw new Error('not Postgres');
          this.pools = [first.pool, second.pool];
          return [
            createPostgresLimits({ pool: first.pool, clock, logger }),
            createPostgresLimits({ pool: second.pool, clock, logger }),
          ];
        },
        pools: undefined as undefined | [pg.Pool, pg.Pool],
        async buses() {
          const [a, b] = this.pools!;
          const buses: [Invalidations, Invalidations] = [
            createPostgresInvalidations({ pool: a, logger }),
            createPostgresInvalidations({ pool: b, logger }),
          ];
          cleanups.push(() => Promise.all(buses.map((bus) => bus.close())));
          return buses;
        },
      } as Store & { pools?: [pg.Pool, pg.Pool] })
    : undefined,
  redis: process.env.TEST_REDIS_URL
    ? ({
        prefix: '',
        async open(clock) {
          const a = new Redis(process.env.TEST_REDIS_URL!);
          const b = new Redis(process.env.TEST_REDIS_URL!);
          cleanups.push(async () => {
            a.disconnect();
            b.disconnect();
          });
          // Every run its own keys: test files run in parallel on one Redis.
          this.prefix = `swarm-test:${randomUUID()}:`;
          this.clients = [a, b];
          return [
            createRedisLimits({ redis: a, clock, prefix: this.prefix }),
            createRedisLimits({ redis: b, clock, prefix: this.prefix }),
          ];
        },
        clients: undefined as undefined | [Redis, Redis],
        async buses() {
          const [a, b] = this.clients!;
          const buses: [Invalidations, Invalidations] = [
            createRedisInvalidations({ redis: a, prefix: this.prefix, logger }),
            createRedisInvalidations({ redis: b, prefix: this.prefix, logger }),
          ];
          cleanups.push(() => Promise.all(buses.map((bus) => bus.close())));
          return buses;
        },
      } as Store & { prefix: string; clients?: [Redis, Redis] })
    : undefined,
};

const okCount = (results: LimitResult[]) => results.filter((r) => r.ok).length;

for (const [name, store] of Object.entries(stores)) {
  describe.skipIf(!store)(`shared limits in ${name}`, () => {
    it('grants the burst, refills on the clock, answers Retry-After, and resets', async () => {
      const clock = manualClock();
      const [limits] = await store!.open(clock);
      const rule = { points: 3, windowMs: 60_000 };
      const first = await Promise.all([1, 2, 3].map(() => limits.take('t', 'k', rule)));
      expect(okCount(first)).toBe(3);
      expect(await limits.take('t', 'k', rule)).toEqual({ ok: false, retryAfterSec: 20 });
      // Another key, another limit name: budgets of their own.
      expect(await limits.take('t', 'other', rule)).toEqual({ ok: true, remaining: 2 });
      expect(await limits.take('u', 'k', rule)).toEqual({ ok: true, remaining: 2 });
      clock.advance(19_000);
      expect(await limits.take('t', 'k', rule)).toEqual({ ok: false, retryAfterSec: 1 });
      clock.advance(1_000);
      expect(await limits.take('t', 'k', rule)).toEqual({ ok: true, remaining: 0 });
      expect((await limits.take('t', 'k', rule)).ok).toBe(false);
      await limits.reset('t', 'k');
      expect(okCount(await Promise.all([1, 2, 3].map(() => limits.take('t', 'k', rule))))).toBe(3);

      // A burst larger than the rate, as the login throttle uses.
      const login = { points: 1, windowMs: 60_000, burst: 10 };
      const tries: LimitResult[] = [];
      for (let i = 0; i < 11; i++) tries.push(await limits.take('login', 'alice', login));
      expect(okCount(tries)).toBe(10);
      expect(tries[10]).toEqual({ ok: false, retryAfterSec: 60 });
    });

    it('gives clients of two processes one budget, not two, even at once', async () => {
      const clock = manualClock();
      const [a, b] = await store!.open(clock);
      const rule = { points: 5, windowMs: 60_000 };
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).take('shared', '198.51.100.7', rule)),
      );
      expect(okCount(results)).toBe(5);
      clock.advance(12_000);
      expect(
        okCount(
          await Promise.all([
            a.take('shared', '198.51.100.7', rule),
            b.take('shared', '198.51.100.7', rule),
          ]),
        ),
      ).toBe(1);
    });

    it('answers takes that arrive together as the same takes one after another', async () => {
      const clock = manualClock();
      const [a] = await store!.open(clock);
      const rule = { points: 10, windowMs: 60_000 };
      // Room for all eight: granted together.
      const first = await Promise.all(
        Array.from({ length: 8 }, () => a.take('together', '198.51.100.8', rule)),
      );
      // Each is told what was left after it, as if they had come one after another.
      expect(first.map((r) => (r.ok ? r.remaining : -1))).toEqual([9, 8, 7, 6, 5, 4, 3, 2]);
      // Two left for three: the first two in arrival order, the third refused for 6 s.
      const second = await Promise.all(
        Array.from({ length: 3 }, () => a.take('together', '198.51.100.8', rule)),
      );
      expect(second).toEqual([
        { ok: true, remaining: 1 },
        { ok: true, remaining: 0 },
        { ok: false, retryAfterSec: 6 },
      ]);
      // Another key's bucket is its own.
      expect(await a.take('together', '198.51.100.9', rule)).toEqual({ ok: true, remaining: 9 });
    });

    it.skipIf(!store?.buses)(
      'tells its own listeners once and the other process, by topic',
      async () => {
        const [one, two] = await store!.buses!();
        const heard: string[] = [];
        one.subscribe('reads', () => heard.push('one'));
        const heardByTwo = new Promise<void>((resolve) =>
          two.subscribe('reads', () => {
            heard.push('two');
            resolve();
          }),
        );
        two.subscribe('other-topic', () => heard.push('two: other topic'));
        await Promise.all([one.listening(), two.listening()]);
        await one.publish('reads');
        await heardByTwo;
        // The web app and the gateway of one process share its bus: the publisher's own listeners
        // hear it at once, and not a second time when the bus echoes the message back.
        expect(heard.filter((h) => h === 'one')).toHaveLength(1);
        expect(heard).toContain('two');
        expect(heard).not.toContain('two: other topic');
      },
    );
  });
}
