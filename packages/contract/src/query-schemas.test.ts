import { describe, expect, it } from 'vitest';
import {
  booleanQuery,
  discoveryQuerySchema,
  infoQuerySchema,
  limitQuery,
  nodesQuerySchema,
  repliesQuerySchema,
  swarmUserQuerySchema,
  timelineQuerySchema,
} from './query-schemas.ts';

describe('limitQuery', () => {
  const limit = limitQuery({ default: 25, max: 50 });
  it.each([
    [undefined, 25],
    ['0', 0],
    ['1', 1],
    ['007', 7],
    ['50', 50],
    ['51', 50],
    ['99999999999999999999999', 50],
    [10, 10],
    [500, 50],
  ])('%j → %d', (input, expected) => {
    expect(limit.parse(input)).toBe(expected);
  });

  it.each([
    ['-1'],
    [''],
    ['1.5'],
    ['1e3'],
    ['ten'],
    [' 5'],
    ['+5'],
    ['0x10'],
    [-1],
    [2.5],
    [Number.NaN],
    [true],
    [null],
  ])('rejects %j', (input) => {
    const parsed = limit.safeParse(input);
    expect(parsed.success).toBe(false);
  });

  it('says why', () => {
    expect(limit.safeParse('-1').error?.issues[0]?.message).toMatch(/non-negative integer/);
  });
});

describe('booleanQuery', () => {
  const flag = booleanQuery(true);
  it.each([
    [undefined, true],
    ['true', true],
    ['1', true],
    ['false', false],
    ['0', false],
    [false, false],
  ])('%j → %s', (input, expected) => {
    expect(flag.parse(input)).toBe(expected);
  });
  it.each([['yes'], ['TRUE'], [''], ['2'], [1]])('rejects %j', (input) => {
    expect(flag.safeParse(input).success).toBe(false);
  });
});

describe('endpoint queries (from URLSearchParams)', () => {
  const q = (text: string) => Object.fromEntries(new URLSearchParams(text));

  it('GET /api/swarm/users/[handle]: limit 25, max 50, 0 allowed; reposts only when asked', () => {
    expect(swarmUserQuerySchema.parse(q(''))).toEqual({ limit: 25, reposts: false });
    expect(swarmUserQuerySchema.parse(q('limit=0'))).toEqual({ limit: 0, reposts: false });
    expect(swarmUserQuerySchema.parse(q('limit=80&other=x'))).toEqual({
      limit: 50,
      reposts: false,
    });
    expect(swarmUserQuerySchema.parse(q('reposts=true'))).toEqual({ limit: 25, reposts: true });
    expect(swarmUserQuerySchema.safeParse(q('limit=-5')).success).toBe(false);
    expect(swarmUserQuerySchema.safeParse(q('reposts=yes')).success).toBe(false);
  });

  it('GET /api/swarm/timeline: limit 20, max 50, optional before cursor', () => {
    expect(timelineQuerySchema.parse(q(''))).toEqual({ limit: 20 });
    expect(timelineQuerySchema.parse(q('limit=51&before=2026-11-22T14:00:00Z'))).toEqual({
      limit: 50,
      before: '2026-11-22T14:00:00.000Z',
    });
    expect(timelineQuerySchema.safeParse(q('before=yesterday')).success).toBe(false);
  });

  it('GET /.well-known/node-swarm: nodes default true, limit 50, max 200', () => {
    expect(discoveryQuerySchema.parse(q(''))).toEqual({ nodes: true, limit: 50 });
    expect(discoveryQuerySchema.parse(q('nodes=false&limit=1000'))).toEqual({
      nodes: false,
      limit: 200,
    });
    expect(discoveryQuerySchema.safeParse(q('nodes=maybe')).success).toBe(false);
  });

  it('GET /api/swarm/info: stats default false', () => {
    expect(infoQuerySchema.parse(q(''))).toEqual({ stats: false });
    expect(infoQuerySchema.parse(q('stats=1'))).toEqual({ stats: true });
  });

  it('GET /api/swarm/nodes: limit 100, max 500, stats default true', () => {
    expect(nodesQuerySchema.parse(q(''))).toEqual({ limit: 100, stats: true });
    expect(nodesQuerySchema.parse(q('limit=501&stats=0'))).toEqual({ limit: 500, stats: false });
    expect(nodesQuerySchema.safeParse(q('limit=1.0')).success).toBe(false);
  });

  it('GET /api/swarm/replies: postId uuid required, optional before', () => {
    const postId = '6ba7b810-9dad-11d1-80b4-00c04fd430c8';
    expect(repliesQuerySchema.parse(q(`postId=${postId}`))).toEqual({ postId });
    expect(repliesQuerySchema.safeParse(q('')).success).toBe(false);
    expect(repliesQuerySchema.safeParse(q('postId=abc')).success).toBe(false);
    expect(repliesQuerySchema.parse(q(`postId=${postId}&before=2026-11-22T14:00:00.5Z`))).toEqual({
      postId,
      before: '2026-11-22T14:00:00.500Z',
    });
  });
});
