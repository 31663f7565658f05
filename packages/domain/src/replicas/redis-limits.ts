import type { Redis } from 'ioredis';
import type { Clock } from '../clock.ts';
import { bucketShape, remainingOf, retryAfterSec, type Limits } from './limits.ts';

// `takeFromBucket` as a Lua script, so a take is atomic in Redis. KEYS[1] the bucket's hash;
// ARGV: now (ms on the node's clock), capacity, refill per ms, one request's cost (integer
// units, exact in Lua's doubles). The key expires once the bucket is full again: a missing
// key is a full bucket.
const TAKE_LUA = `
local now = tonumber(ARGV[1])
local capacity = tonumber(ARGV[2])
local per_ms = tonumber(ARGV[3])
local cost = tonumber(ARGV[4])
local saved = redis.call('HMGET', KEYS[1], 'u', 'a')
local units = capacity
local at = now
if saved[1] then
  units = tonumber(saved[1])
  at = tonumber(saved[2])
  units = math.min(capacity, units + math.max(0, now - at) * per_ms)
  at = math.max(at, now)
end
local granted = 0
if units >= cost then
  units = units - cost
  granted = 1
end
redis.call('HSET', KEYS[1], 'u', string.format('%d', units), 'a', string.format('%d', at))
redis.call('PEXPIRE', KEYS[1], math.ceil((capacity - units) / per_ms) + 1000)
return {granted, units}
`;

type WithTake = Redis & {
  swarmTakeToken(
    key: string,
    now: number,
    capacity: number,
    perMs: number,
    cost: number,
  ): Promise<[number, number]>;
};

/**
 * Buckets in Redis (`REDIS_URL`), shared by every process of the node, under
 * `<prefix>rl:<name>:<key>` (the prefix names the node, so several nodes can share a Redis).
 */
export function createRedisLimits(deps: { redis: Redis; clock: Clock; prefix: string }): Limits {
  if (!('swarmTakeToken' in deps.redis)) {
    deps.redis.defineCommand('swarmTakeToken', { numberOfKeys: 1, lua: TAKE_LUA });
  }
  const redis = deps.redis as WithTake;
  const keyOf = (name: string, key: string) => `${deps.prefix}rl:${name}:${key}`;
  return {
    store: 'redis',
    async take(name, key, rule) {
      const { cost, capacity, perMs } = bucketShape(rule);
      const [granted, units] = await redis.swarmTakeToken(
        keyOf(name, key),
        Math.floor(deps.clock.now().getTime()),
        capacity,
        perMs,
        cost,
      );
      return granted === 1
        ? { ok: true, remaining: remainingOf(Number(units), rule) }
        : { ok: false, retryAfterSec: retryAfterSec(Number(units), rule) };
    },
    async reset(name, key) {
      await redis.del(keyOf(name, key));
    },
    async close() {},
  };
}
