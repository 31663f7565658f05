import { describe, expect, it } from 'vitest';
import { createChangeStamper } from './change-stamp.ts';
import {
  failedProbesSinceInactive,
  probeDelayMs,
  trustAfterFailure,
  trustAfterSuccess,
  weightedSample,
} from './trust.ts';

describe('trust rules', () => {
  it('sets 50 on the first direct contact, then +1 up to 100; −5 per failure down to 0', () => {
    expect(trustAfterSuccess(0, false)).toBe(50);
    expect(trustAfterSuccess(50, true)).toBe(51);
    expect(trustAfterSuccess(100, true)).toBe(100);
    expect(trustAfterFailure(50)).toBe(45);
    expect(trustAfterFailure(3)).toBe(0);
  });

  it('re-probes after 1 minute, doubling, at most 24 hours', () => {
    expect([1, 2, 3, 4].map(probeDelayMs)).toEqual([60_000, 120_000, 240_000, 480_000]);
    expect(probeDelayMs(11)).toBe(60_000 * 1024);
    expect(probeDelayMs(12)).toBe(24 * 60 * 60 * 1000);
    expect(probeDelayMs(1000)).toBe(24 * 60 * 60 * 1000);
    expect(failedProbesSinceInactive(5, true)).toBe(1);
    expect(failedProbesSinceInactive(1, false)).toBe(1);
  });

  it('samples distinct peers, favouring trust', () => {
    const peers = [
      { d: 'a', t: 0 },
      { d: 'b', t: 100 },
      { d: 'c', t: 50 },
      { d: 'e', t: 10 },
    ];
    let seed = 1;
    const random = () => ((seed = (seed * 16807) % 2147483647) - 1) / 2147483646;
    const counts = new Map<string, number>();
    for (let i = 0; i < 2000; i++) {
      const picked = weightedSample(peers, 1, (p) => p.t, random);
      counts.set(picked[0]!.d, (counts.get(picked[0]!.d) ?? 0) + 1);
    }
    expect(counts.get('b')!).toBeGreaterThan(counts.get('c')!);
    expect(counts.get('c')!).toBeGreaterThan(counts.get('a')!);
    const three = weightedSample(peers, 3, (p) => p.t, random);
    expect(new Set(three).size).toBe(3);
    expect(weightedSample(peers, 10, (p) => p.t, random)).toHaveLength(4);
  });
});

describe('change stamps', () => {
  it('are strictly increasing even when the clock stands still, and never below a seen stamp', () => {
    const at = new Date('2026-11-22T12:00:00.000Z');
    const stamper = createChangeStamper({ now: () => at });
    const a = stamper.next();
    const b = stamper.next();
    expect(a.getTime()).toBe(at.getTime());
    expect(b.getTime()).toBe(at.getTime() + 1);
    stamper.observe(new Date(at.getTime() + 500));
    expect(stamper.next().getTime()).toBe(at.getTime() + 501);
  });
});
