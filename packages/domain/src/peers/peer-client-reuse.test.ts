import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { generateSigningKeyPair, nodeInfoSchema } from '@swarm/contract';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Logger } from '../logger.ts';
import { createPeerClient } from './peer-client.ts';

// A peer that closes kept-alive connections when it sees fit (an origin node closes idle ones
// after 5 s): here, deterministically, the moment the next request arrives on one, with a reset.
// What the client does then is what decides whether a visitor sees the page or a 502.

const silent = () => undefined;
const logger = { debug: silent, info: silent, warn: silent, error: silent } as unknown as Logger;
const INFO = {
  domain: 'beta.example',
  name: 'Beta',
  description: '',
  publicKey: '',
  softwareVersion: '1.0.0',
  userCount: 1,
  postCount: 1,
  capabilities: [],
};

let server: http.Server;
let domain: string;
let connections = 0;
const seen: string[] = [];
/** Sockets that carried an answer already: the next request on one is reset. */
const used = new WeakSet<Socket>();

beforeAll(async () => {
  server = http.createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    if (used.has(req.socket)) {
      req.socket.resetAndDestroy();
      return;
    }
    used.add(req.socket);
    req.resume();
    req.on('end', () => {
      const body = req.method === 'GET' ? INFO : { success: true, message: 'ok' };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    });
  });
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  domain = `127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const keys = await generateSigningKeyPair();
const client = createPeerClient({
  config: { domain: 'alpha.example', dev: true },
  keys,
  clock: { now: () => new Date() },
  logger,
});

describe('peer client on a kept-alive connection the peer has dropped', () => {
  it('sends a GET once more on a new connection, and gets its answer', async () => {
    seen.length = 0;
    const before = connections;
    const first = await client.getJson(domain, '/api/swarm/info', nodeInfoSchema);
    expect(first).toMatchObject({ ok: true, value: { domain: 'beta.example' } });
    // Goes out on the kept-alive connection, which the peer resets: asked again on a new one.
    const second = await client.getJson(domain, '/api/swarm/info?again', nodeInfoSchema);
    expect(second).toMatchObject({ ok: true, status: 200, value: { domain: 'beta.example' } });
    expect(seen).toEqual([
      'GET /api/swarm/info',
      'GET /api/swarm/info?again',
      'GET /api/swarm/info?again',
    ]);
    expect(connections - before).toBe(2);
  });

  it('never sends a POST twice: the peer may have acted on it', async () => {
    // A GET on a new connection leaves it kept alive for the POST.
    expect(await client.getJson(domain, '/api/swarm/info?warm', nodeInfoSchema)).toMatchObject({
      ok: true,
    });
    seen.length = 0;
    const before = connections;
    const posted = await client.postJson(
      domain,
      '/api/swarm/interactions/like',
      { postId: 'x' },
      z.object({ success: z.boolean() }),
    );
    expect(posted).toMatchObject({
      ok: false,
      reason: { kind: 'unreachable', reason: 'ECONNRESET', domain },
    });
    expect(seen).toEqual(['POST /api/swarm/interactions/like']);
    expect(connections - before).toBe(0);
  });
});
