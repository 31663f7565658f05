import { describe, expect, it } from 'vitest';
import { HINT_BOUNDS, afterPrune } from './node-hints.ts';

describe('pruned hints in our gossip `known` filter', () => {
  it('a first prune is remembered but not held; a second within the hold is held for it', () => {
    const first = afterPrune(undefined, 0);
    expect(first).toEqual({ until: HINT_BOUNDS.prunedKnownMs, held: false });
    const second = afterPrune(first, 40 * 60_000);
    expect(second).toEqual({ until: 40 * 60_000 + HINT_BOUNDS.prunedKnownMs, held: true });
    // Long after the memory expired, a prune counts as a first one again.
    expect(afterPrune(second, second.until).held).toBe(false);
  });
});
