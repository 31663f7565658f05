import http from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  exportPublicKeyPem,
  importPublicKeyPem,
  nodeInfoSchema,
  readNodeSignatureHeaders,
  verifyNodeRequestSignature,
} from '@swarm/contract';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isRetryable, peerErrorToHttp } from './peer-errors.ts';
import { INFO, NOW, client, failure, keys } from './peer-client.test-helpers.ts';

/** What the test server saw, per path. */
interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

function json(
  res: http.ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

/** Writes 64 KiB chunks until the client hangs up; resolves with the bytes written. */
function streamForever(res: http.ServerResponse): Promise<number> {
  res.writeHead(200, { 'content-type': 'application/json' });
  const chunk = Buffer.alloc(64 * 1024, 0x20);
  let written = 0;
  return new Promise((resolve) => {
    const pump = () => {
      while (!res.destroyed) {
        written += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', pump);
      }
    };
    res.on('close', () => resolve(written));
    res.write('[');
    pump();
  });
}

let server: http.Server;
let domain: string;
let refusedDomain: string;
const seen: Seen[] = [];
let connections = 0;
let hugeClosed: Promise<number> = Promise.resolve(0);

const routes: Record<string, (req: http.IncomingMessage, res: http.ServerResponse) => void> = {
  '/api/swarm/info': (_req, res) => json(res, 200, INFO),
  '/text': (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<html>hello</html>');
  },
  '/latin1': (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(Buffer.from([0x22, 0xe9, 0x22])); // "é" in Latin-1: not UTF-8
  },
  '/wrong-shape': (_req, res) => json(res, 200, { ...INFO, userCount: 'many' }),
  '/redirect': (_req, res) => {
    res.writeHead(302, { location: `http://${domain}/api/swarm/info` });
    res.end();
  },
  '/huge': (_req, res) => {
    hugeClosed = streamForever(res);
  },
  '/huge-declared': (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': 50 * 1024 * 1024 });
    res.write('{');
  },
  '/never': () => undefined,
  '/stall-body': (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"domain":');
  },
  '/busy': (_req, res) =>
    json(res, 503, { error: 'Busy, try later.', code: 'INTERNAL' }, { 'retry-after': '120' }),
  '/limited': (_req, res) =>
    json(
      res,
      429,
      { error: 'Slow down.', code: 'RATE_LIMITED' },
      {
        'retry-after': new Date(NOW.getTime() + 90_000).toUTCString(),
      },
    ),
  '/missing': (_req, res) =>
    json(res, 404, { error: 'No such user.', code: 'USER_NOT_FOUND', details: { handle: 'x' } }),
  '/teapot-html': (_req, res) => {
    res.writeHead(418, { 'content-type': 'text/html' });
    res.end('<h1>I am a teapot</h1>'.repeat(10_000));
  },
  '/api/swarm/interactions/like': (_req, res) =>
    json(res, 200, { success: true, message: 'Liked' }),
};

function listen(s: http.Server): Promise<number> {
  return new Promise((resolve) =>
    s.listen(0, '127.0.0.1', () => resolve((s.address() as AddressInfo).port)),
  );
}

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push({
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks),
      });
      const route = routes[new URL(req.url ?? '/', 'http://x').pathname];
      if (route) route(req, res);
      else json(res, 404, { error: 'Not found.', code: 'NOT_FOUND' });
    });
  });
  server.on('connection', () => connections++);
  domain = `127.0.0.1:${await listen(server)}`;
  const closed = http.createServer();
  refusedDomain = `127.0.0.1:${await listen(closed)}`;
  await new Promise((resolve) => closed.close(resolve));
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const publicKeyPem = await exportPublicKeyPem(keys.publicKey);

describe('peer client against a real HTTP server (dev mode, loopback peer)', () => {
  it('GETs JSON and validates it with the contract schema, ignoring unknown members', async () => {
    const result = await client().getJson(domain, '/api/swarm/info?stats=true', nodeInfoSchema);
    expect(result).toMatchObject({
      ok: true,
      status: 200,
      value: { domain: 'beta.example', userCount: 3 },
    });
    expect(result.ok && 'somethingExtra' in result.value).toBe(false);
    expect(result.ms).toBeGreaterThanOrEqual(0);
    const request = seen.at(-1);
    expect(request).toMatchObject({ method: 'GET', url: '/api/swarm/info?stats=true' });
    expect(request?.headers).toMatchObject({ host: domain, accept: 'application/json' });
    expect(request?.headers['x-swarm-signature']).toBeUndefined();
  });

  it('reports a non-JSON answer as invalid_response', async () => {
    const error = failure(await client().getJson(domain, '/text', nodeInfoSchema));
    expect(error).toMatchObject({ kind: 'invalid_response', domain, status: 200 });
    expect(error.kind === 'invalid_response' && error.reason).toMatch(/not JSON/);
    expect(failure(await client().getJson(domain, '/latin1', z.string()))).toMatchObject({
      kind: 'invalid_response',
      reason: 'the body is not UTF-8',
    });
  });

  it('reports an answer of the wrong shape as invalid_response with a short reason', async () => {
    const error = failure(await client().getJson(domain, '/wrong-shape', nodeInfoSchema));
    expect(error).toMatchObject({
      kind: 'invalid_response',
      reason: expect.stringMatching(/^unexpected shape: userCount/),
    });
    expect(error.kind === 'invalid_response' && error.reason.length).toBeLessThanOrEqual(200);
  });

  it('refuses redirects without following them', async () => {
    const before = seen.filter((s) => s.url === '/api/swarm/info').length;
    const error = failure(await client().getJson(domain, '/redirect', nodeInfoSchema));
    expect(error).toEqual({
      kind: 'redirect',
      domain,
      status: 302,
      location: `http://${domain}/api/swarm/info`,
    });
    expect(seen.filter((s) => s.url === '/api/swarm/info').length).toBe(before);
    expect(isRetryable(error)).toBe(false);
  });

  it('stops reading a streamed answer past the cap and hangs up', async () => {
    const error = failure(await client().getJson(domain, '/huge', z.unknown()));
    expect(error).toEqual({ kind: 'too_large', domain, maxBytes: 1024 * 1024 });
    // The server only stops writing because we closed the connection.
    const written = await hugeClosed;
    expect(written).toBeGreaterThan(1024 * 1024);
  });

  it('refuses a declared Content-Length over the cap, and honours a per-call cap', async () => {
    expect(failure(await client().getJson(domain, '/huge-declared', z.unknown()))).toMatchObject({
      kind: 'too_large',
    });
    expect(
      failure(await client().getJson(domain, '/api/swarm/info', nodeInfoSchema, { maxBytes: 64 })),
    ).toEqual({
      kind: 'too_large',
      domain,
      maxBytes: 64,
    });
  });

  it('times out on a peer that never answers, and on one that stalls mid-body', async () => {
    const error = failure(
      await client().getJson(domain, '/never', z.unknown(), { timeoutMs: 150 }),
    );
    expect(error).toEqual({ kind: 'timeout', domain, timeoutMs: 150 });
    expect(isRetryable(error)).toBe(true);
    expect(peerErrorToHttp(error)).toEqual({
      status: 504,
      body: {
        code: 'PEER_TIMEOUT',
        error: `${domain} did not answer within 0.15 seconds.`,
        details: { peer: domain, reason: 'timeout' },
      },
    });
    const stalled = await client({ timeoutMs: 150 }).getJson(domain, '/stall-body', z.unknown());
    expect(failure(stalled)).toMatchObject({ kind: 'timeout', timeoutMs: 150 });
  });

  it('reports a refused connection as unreachable', async () => {
    const error = failure(await client().getJson(refusedDomain, '/api/swarm/info', nodeInfoSchema));
    expect(error).toEqual({ kind: 'unreachable', domain: refusedDomain, reason: 'ECONNREFUSED' });
    expect(isRetryable(error)).toBe(true);
    expect(peerErrorToHttp(error).status).toBe(502);
  });

  it('reports 503 with Retry-After as a retryable http error', async () => {
    const error = failure(await client().getJson(domain, '/busy', nodeInfoSchema));
    expect(error).toEqual({
      kind: 'http',
      domain,
      status: 503,
      retryAfter: 120,
      body: { error: 'Busy, try later.', code: 'INTERNAL' },
    });
    expect(isRetryable(error)).toBe(true);
    const limited = failure(await client().getJson(domain, '/limited', nodeInfoSchema));
    expect(limited).toMatchObject({ kind: 'http', status: 429, retryAfter: 90 });
    expect(isRetryable(limited)).toBe(true);
  });

  it('parses the peer’s error body on a 404; other 4xx are final', async () => {
    const error = failure(await client().getJson(domain, '/missing', nodeInfoSchema));
    expect(error).toEqual({
      kind: 'http',
      domain,
      status: 404,
      retryAfter: undefined,
      body: { error: 'No such user.', code: 'USER_NOT_FOUND', details: { handle: 'x' } },
    });
    expect(isRetryable(error)).toBe(false);
    expect(peerErrorToHttp(error)).toEqual({
      status: 502,
      body: {
        code: 'PEER_UNAVAILABLE',
        error: `${domain} answered with HTTP 404 (USER_NOT_FOUND).`,
        details: { peer: domain, reason: 'http', status: 404, peerCode: 'USER_NOT_FOUND' },
      },
    });
    // A big HTML error page: the status still counts, the body is skipped.
    expect(failure(await client().getJson(domain, '/teapot-html', nodeInfoSchema))).toMatchObject({
      kind: 'http',
      status: 418,
      body: undefined,
    });
  });

  it('sends a node-signed POST whose signature covers exactly the bytes received', async () => {
    const body = { interactionId: 'i-1', text: 'héllo ✓', nested: { b: 1, a: [1, 2] } };
    const path = '/api/swarm/interactions/like?via=test';
    const result = await client().postJson(domain, path, body, z.object({ success: z.boolean() }));
    expect(result).toMatchObject({ ok: true, value: { success: true } });

    const request = seen.at(-1) as Seen;
    expect(request.method).toBe('POST');
    expect(request.headers['content-type']).toBe('application/json');
    expect(JSON.parse(request.body.toString('utf8'))).toEqual(body);
    const headers = readNodeSignatureHeaders(
      (name) => request.headers[name.toLowerCase()] as string | undefined,
    );
    expect(headers.ok).toBe(true);
    if (!headers.ok) return;
    expect(headers.value['X-Swarm-Source-Domain']).toBe('alpha.example');
    expect(headers.value['X-Swarm-Timestamp']).toBe(NOW.toISOString());

    const publicKey = await importPublicKeyPem(publicKeyPem);
    if (!publicKey.ok) throw new Error(publicKey.reason);
    const verify = (bytes: Uint8Array, targetDomain = domain) =>
      verifyNodeRequestSignature({
        publicKey: publicKey.value,
        method: request.method,
        path: request.url,
        targetDomain,
        body: bytes,
        headers: headers.value,
      });
    expect(await verify(request.body)).toBe(true);
    expect(await verify(Buffer.concat([request.body, Buffer.from(' ')]))).toBe(false);
    expect(await verify(request.body, 'other.example')).toBe(false);
  });

  it('sends an unsigned POST only when asked', async () => {
    const result = await client().postJson(
      domain,
      '/api/swarm/interactions/like',
      {},
      z.unknown(),
      { sign: false },
    );
    expect(result.ok).toBe(true);
    expect(seen.at(-1)?.headers['x-swarm-signature']).toBeUndefined();
  });

  it('outside development mode refuses the loopback peer without opening a connection', async () => {
    const before = connections;
    const error = failure(
      await client({ config: { domain: 'alpha.example', dev: false } }).getJson(
        domain,
        '/api/swarm/info',
        nodeInfoSchema,
      ),
    );
    expect(error).toMatchObject({ kind: 'blocked_address', domain, address: '127.0.0.1' });
    expect(isRetryable(error)).toBe(false);
    expect(peerErrorToHttp(error).body.error).toMatch(/^127\.0\.0\.1:\d+ was not contacted: /);
    expect(connections).toBe(before);
  });

  it('throws on programmer errors only', async () => {
    await expect(client().getJson('https://x', '/a', z.unknown())).rejects.toThrow(TypeError);
    await expect(client().getJson(domain, 'no-slash', z.unknown())).rejects.toThrow(TypeError);
    await expect(client().getJson(domain, '//evil.example/a', z.unknown())).rejects.toThrow(
      /leaves/,
    );
    await expect(client().postJson(domain, '/a', undefined, z.unknown())).rejects.toThrow(
      TypeError,
    );
    await expect(client().postJson(domain, '/a', { n: 1n }, z.unknown())).rejects.toThrow(
      TypeError,
    );
  });
});
