import { describe, expect, it } from 'vitest';
import { pageNewestFirst } from './content.service.ts';

const row = (ms: number, id: string) => ({ id, createdAt: new Date(ms) });

describe('pageNewestFirst', () => {
  it('returns everything when the rows fit', () => {
    const rows = [row(3, 'a'), row(2, 'b')];
    expect(pageNewestFirst(rows, 2)).toEqual(rows);
    expect(pageNewestFirst([], 0)).toEqual([]);
  });

  it('cuts at the limit when the next row is in another millisecond', () => {
    expect(pageNewestFirst([row(3, 'a'), row(2, 'b'), row(1, 'c')], 2).map((r) => r.id)).toEqual([
      'a',
      'b',
    ]);
  });

  it('never ends a page inside a millisecond that continues beyond it', () => {
    const rows = [row(5, 'a'), row(4, 'b'), row(4, 'c'), row(4, 'd')];
    expect(pageNewestFirst(rows, 3).map((r) => r.id)).toEqual(['a']);
  });

  it('keeps a full page when the whole page shares one millisecond', () => {
    const rows = [row(4, 'a'), row(4, 'b'), row(4, 'c')];
    expect(pageNewestFirst(rows, 2).map((r) => r.id)).toEqual(['a', 'b']);
  });

  it('gives an empty page for limit 0', () => {
    expect(pageNewestFirst([row(1, 'a')], 0)).toEqual([]);
  });
});
