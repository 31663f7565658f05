import { describe, expect, it } from 'vitest';
import {
  encodeBytes,
  fillGatewayPath,
  fillRoute,
  problemsWith,
  webFieldNames,
  webRouteTree,
  type Answer,
} from '../src/front-door.ts';

// The front-door sweep's own parts: the route tree it derives and the rules it checks. The
// sweep itself runs in front-door-*.process.test.ts.

const json = (status: number, body: unknown): Answer => ({
  status,
  headers: { 'content-type': 'application/json' },
  text: JSON.stringify(body),
});

describe('the web route tree', () => {
  const tree = webRouteTree();
  const byId = new Map(tree.map((r) => [r.id, r]));

  it('holds pages, endpoints with their methods, and form actions', () => {
    expect(byId.get('/')).toMatchObject({ page: true });
    expect(byId.get('/api/users/[handle]')).toMatchObject({ page: false, endpoint: ['GET'] });
    expect(byId.get('/api/users/[handle]/follow')?.endpoint).toEqual(['POST']);
    expect(byId.get('/trpc/[...trpc]')?.endpoint).toEqual(['GET', 'POST']);
    expect(byId.get('/@[address]')?.actions).toEqual(['follow', 'unfollow']);
    expect(byId.get('/login')?.actions).toEqual(['default']);
    expect(tree.length).toBeGreaterThanOrEqual(25);
  });

  it('fills parameters, rest parameters included', () => {
    const route = byId.get('/admin/nodes/[domain]')!;
    expect(fillRoute(route, () => ['a', 'b'])).toEqual(['/admin/nodes/a', '/admin/nodes/b']);
    expect(fillRoute(byId.get('/trpc/[...trpc]')!, () => ['x.y'])).toEqual(['/trpc/x.y']);
    expect(fillGatewayPath('/api/swarm/users/:handle', () => ['%00'])).toEqual([
      '/api/swarm/users/%00',
    ]);
  });

  it('knows the form fields the app reads', () => {
    expect(webFieldNames()).toEqual(expect.arrayContaining(['content', 'handle', 'password']));
  });

  it('encodes any bytes as a path segment', () => {
    expect(encodeBytes(new Uint8Array([0, 0x41, 0x2f, 0xff]))).toBe('%00A%2F%FF');
  });
});

describe('the rules of every answer', () => {
  const get = (path: string) => ({ method: 'GET', path });

  it('refuses a 500 anywhere, and a 502 that is not a peer failure', () => {
    expect(problemsWith(get('/'), { status: 500, headers: {}, text: '' })).toEqual([
      'answered 500',
    ]);
    expect(problemsWith(get('/api/x'), json(502, { error: 'x', code: 'INTERNAL' }))).toEqual([
      'answered 502',
    ]);
    expect(
      problemsWith(get('/api/x'), json(502, { error: 'x', code: 'PEER_UNAVAILABLE' })),
    ).toEqual([]);
  });

  it('wants { error, code } under /api and JSON under /trpc', () => {
    const html: Answer = { status: 404, headers: { 'content-type': 'text/html' }, text: '<p>' };
    expect(problemsWith(get('/api/nope'), html)).toEqual([
      '404 under /api is not JSON (text/html)',
    ]);
    expect(problemsWith(get('/api/nope'), json(404, { message: 'Not found' }))).toEqual([
      '404 body is not { error, code }',
    ]);
    expect(problemsWith(get('/nope'), html)).toEqual([]);
    const trpcError = { error: { message: 'No', code: -32004, data: { code: 'NOT_FOUND' } } };
    expect(problemsWith(get('/trpc/nope'), json(404, trpcError))).toEqual([]);
  });

  it('finds stack traces and stack members', () => {
    const body = { error: 'x', code: 'INVALID_REQUEST', details: { stack: 'Error' } };
    expect(problemsWith(get('/api/x'), json(400, body))).toEqual([
      'the body holds a "stack" member',
    ]);
    const text = 'TypeError: no\n    at resolve (/srv/app/index.js:12:5)';
    expect(problemsWith(get('/'), { status: 400, headers: {}, text })).toEqual([
      'the body holds a stack trace',
    ]);
  });
});
