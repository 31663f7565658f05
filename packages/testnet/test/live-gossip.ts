import { once } from 'node:events';
import type { Server } from 'node:http';
import { SWARM_PATHS, signNodeRequest, type HandleEntry } from '@swarm/contract';
import { createHttpServer } from '@swarm/gateway';
import { createManualClock, createTestNode, type TestNode } from './harness.ts';
import { freePort } from '../src/node-process.ts';

// Gateways on their own loopback ports (development mode, so plain http to loopback is allowed):
// peers reach each other through the real peer client and SSRF guard, and a test can send a
// node any gossip request, node-signed by another. Invented domains do not resolve.

export interface LiveNode extends TestNode {
  domain: string;
  url: string;
  server: Server;
}

/** Loopback names resolve; every other name is unknown (as invented domains are). */
async function resolveHost(host: string): Promise<string[]> {
  if (host === 'localhost') return ['127.0.0.1'];
  throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
}

/** Live nodes started by one test file; `closeAll` in its `afterEach`. */
export function liveNodes() {
  const live: LiveNode[] = [];

  /** A node with `users` local users `user0…` (distinct dids) and extra environment `env`. */
  async function liveNode(
    clock = createManualClock(),
    users = 0,
    env: Record<string, string> = {},
  ): Promise<LiveNode> {
    const port = await freePort();
    const domain = `localhost:${port}`;
    const t = await createTestNode(
      { SWARM_DOMAIN: domain, SWARM_DEV: '1', SWARM_RATE_LIMIT_PER_MIN: '100000', ...env },
      { clock, resolveHost },
    );
    if (users > 0) {
      await t.node.db.prisma.user.createMany({
        data: Array.from({ length: users }, (_, i) => ({
          handle: `user${i}`,
          displayName: `User ${i}`,
          did: `did:key:zDnHonest${port}x${i}`,
          passwordHash: 'x',
        })),
      });
    }
    const server = createHttpServer({ fetch: t.app.fetch });
    server.listen(port, '127.0.0.1');
    await once(server, 'listening');
    const node = { ...t, domain, url: `http://127.0.0.1:${port}`, server };
    live.push(node);
    return node;
  }

  async function closeAll() {
    for (const n of live.splice(0)) {
      n.server.close();
      await n.close();
    }
  }

  return { liveNode, closeAll };
}

/** POST /api/swarm/gossip over the socket, node-signed by `signer` when given. */
export async function gossipTo(
  target: LiveNode,
  body: { sender: string; nodes?: unknown[]; handles?: HandleEntry[] },
  signer?: LiveNode,
): Promise<Response> {
  const json = JSON.stringify({
    nodes: [],
    handles: [],
    timestamp: target.clock.now().toISOString(),
    ...body,
  });
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (signer) {
    Object.assign(
      headers,
      await signNodeRequest({
        privateKey: signer.node.keys.privateKey,
        method: 'POST',
        path: SWARM_PATHS.gossip,
        sourceDomain: signer.domain,
        targetDomain: target.domain,
        body: json,
        now: target.clock.now(),
      }),
    );
  }
  return fetch(`${target.url}${SWARM_PATHS.gossip}`, { method: 'POST', headers, body: json });
}
