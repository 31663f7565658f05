import { describe, expect, it } from 'vitest';
import { createReadCache } from './read-cache.ts';

function manualClock() {
  let now = Date.parse('2026-11-22T12:00:00.000Z');
  return { now: () => new Date(now), advance: (ms: number) => (now += ms) };
}

const value = (v: string) => async () => v;

describe('createReadCache', () => {
  it('keeps a loaded value for the TTL on the injected clock, then forgets it', async () => {
    const clock = manualClock();
    const cache = createReadCache<string>({ clock, ttlMs: 1000, maxEntries: 10 });
    expect(await cache.load('/a', value('one'))).toBe('one');
    clock.advance(999);
    expect(cache.get('/a')).toBe('one');
    clock.advance(1);
    expect(cache.get('/a')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('does not keep undefined (not cacheable) answers', async () => {
    const cache = createReadCache<string>({ clock: manualClock(), ttlMs: 1000, maxEntries: 10 });
    expect(await cache.load('/a', async () => undefined)).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('is bounded: the least recently used key goes first', async () => {
    const cache = createReadCache<string>({ clock: manualClock(), ttlMs: 1000, maxEntries: 3 });
    for (const key of ['/a', '/b', '/c']) await cache.load(key, value(key));
    expect(cache.get('/a')).toBe('/a'); // now /b is the oldest use
    await cache.load('/d', value('/d'));
    expect(cache.size).toBe(3);
    expect(cache.get('/b')).toBeUndefined();
    expect(['/a', '/c', '/d'].map((key) => cache.get(key))).toEqual(['/a', '/c', '/d']);
    for (let i = 0; i < 100; i++) await cache.load(`/x${i}`, value('x'));
    expect(cache.size).toBe(3);
  });

  it('runs one load for concurrent misses of a key', async () => {
    const cache = createReadCache<string>({ clock: manualClock(), ttlMs: 1000, maxEntries: 10 });
    let loads = 0;
    let release!: (v: string) => void;
    const slow = () => {
      loads++;
      return new Promise<string>((resolve) => (release = resolve));
    };
    const first = cache.load('/a', slow);
    const second = cache.load('/a', slow);
    expect(cache.pending('/a')).toBeDefined();
    release('one');
    expect([await first, await second]).toEqual(['one', 'one']);
    expect(loads).toBe(1);
    expect(cache.pending('/a')).toBeUndefined();
  });

  it('drops everything on invalidate, including a load that started before it', async () => {
    const cache = createReadCache<string>({ clock: manualClock(), ttlMs: 1000, maxEntries: 10 });
    await cache.load('/a', value('old'));
    let release!: (v: string) => void;
    const running = cache.load('/b', () => new Promise<string>((resolve) => (release = resolve)));
    cache.invalidate();
    expect(cache.get('/a')).toBeUndefined();
    expect(cache.pending('/b')).toBeUndefined(); // a new reader must not join the stale load
    release('stale');
    expect(await running).toBe('stale');
    expect(cache.get('/b')).toBeUndefined();
    expect(await cache.load('/b', value('fresh'))).toBe('fresh');
    expect(cache.get('/b')).toBe('fresh');
  });
});
