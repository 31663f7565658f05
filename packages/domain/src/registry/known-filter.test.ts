import { describe, expect, it } from 'vitest';
import { LIMITS, gossipKnownSchema } from '@swarm/contract';
import {
  KNOWN_FILTER,
  buildKnownFilter,
  knownFilterFalsePositiveRate,
  knownFilterReader,
} from './known-filter.ts';

const domains = (prefix: string, count: number) =>
  Array.from({ length: count }, (_, i) => `${prefix}${i}.example`);

describe('the gossip `known` filter', () => {
  it('holds every domain put in it, and few others (about the expected rate)', () => {
    const held = domains('held-', 2_000);
    const known = gossipKnownSchema.parse(buildKnownFilter(held));
    expect(known.hashes).toBe(KNOWN_FILTER.hashes);
    const has = knownFilterReader(known);
    expect(held.every(has)).toBe(true);
    const others = domains('other-', 20_000);
    const rate = others.filter(has).length / others.length;
    expect(knownFilterFalsePositiveRate(held.length)).toBeLessThan(0.01);
    expect(rate).toBeLessThan(0.02);
  });

  it('has other false positives under another salt, so a node left out once is not left out always', () => {
    const held = domains('held-', 500);
    const others = domains('other-', 20_000);
    const first = others.filter(knownFilterReader(buildKnownFilter(held, 'salt-one')));
    const second = new Set(others.filter(knownFilterReader(buildKnownFilter(held, 'salt-two'))));
    expect(first.length).toBeGreaterThan(0);
    expect(first.filter((d) => second.has(d)).length).toBeLessThan(first.length / 4);
    // A fresh salt each time when none is given.
    expect(buildKnownFilter(held).salt).not.toBe(buildKnownFilter(held).salt);
  });

  it('is sized by what it holds, within the wire limit', () => {
    const small = Buffer.from(buildKnownFilter(['a.example']).bits, 'base64');
    expect(small.length).toBe(KNOWN_FILTER.minBytes);
    const huge = buildKnownFilter(domains('d-', 60_000));
    expect(Buffer.from(huge.bits, 'base64').length).toBe(LIMITS.gossipKnownMaxBytes);
    expect(gossipKnownSchema.safeParse(huge).success).toBe(true);
    expect(
      gossipKnownSchema.safeParse({ ...huge, bits: huge.bits + 'AAAA' }).success,
      'one byte too many',
    ).toBe(false);
  });

  it('an empty-looking or all-ones filter from a peer is read as it says', () => {
    const none = knownFilterReader({ bits: 'AAAAAAAAAAA=', hashes: 3, salt: 's' });
    const all = knownFilterReader({ bits: '//////////8=', hashes: 3, salt: 's' });
    expect(none('a.example')).toBe(false);
    expect(all('a.example')).toBe(true);
  });
});
