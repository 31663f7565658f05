import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VISITOR_FETCH } from '@swarm/domain';
import { freePort, nodeOnPort, type RestartableNode } from '@swarm/testnet';

// Issue 17 item 7 as an attack on a running node (web app + gateway, one process): anonymous
// page views of another node's profile must not turn into one outbound request each, and the
// answer must not tell a refused port from one that never answers.

/** A "peer" that counts what it is asked: `/api/swarm/users/n…` is 404, anything else hangs. */
function countingPeer() {
  const seen: string[] = [];
  const held: ServerResponse[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    seen.push(req.url ?? '');
    if ((req.url ?? '').startsWith('/api/swarm/users/n')) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'No such user.', code: 'USER_NOT_FOUND' }));
      return;
    }
    held.push(res); // never answered: the node's peer timeout ends it
  });
  return { server, seen, held };
}

let dataDir: string;
let node: RestartableNode;
let peer: ReturnType<typeof countingPeer>;
let peerDomain: string;
let closedDomain: string;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'swarm-visitor-'));
  peer = countingPeer();
  const peerPort = await freePort();
  peer.server.listen(peerPort, '127.0.0.1');
  await once(peer.server, 'listening');
  peerDomain = `localhost:${peerPort}`;
  // A port nothing listens on: connections are refused.
  closedDomain = `localhost:${await freePort()}`;
  node = nodeOnPort({ dataDir: join(dataDir, 'node'), port: await freePort() });
  await node.start();
});

afterAll(async () => {
  for (const res of peer?.held ?? []) res.destroy();
  (peer?.server as Server | undefined)?.close();
  await node?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

/** Profile reads the peer was asked for so far. */
const userReads = () => peer.seen.filter((url) => url.startsWith('/api/swarm/users/')).length;

describe('outbound reads caused by anonymous visitors', () => {
  it('100 concurrent views of a remote profile cause one request; the failure is remembered', async () => {
    const views = await Promise.all(
      Array.from({ length: 100 }, () => fetch(`${node.url}/@x@${peerDomain}`)),
    );
    const statuses = new Set(views.map((v) => v.status));
    const pages = await Promise.all(views.map((v) => v.text()));
    expect([...statuses]).toEqual([502]);
    expect(userReads()).toBe(1);
    expect(pages[0]).toContain(`${peerDomain} is not available right now. Try again later.`);

    // Again: answered from what the node remembers, the peer is not asked.
    const again = await Promise.all(
      Array.from({ length: 100 }, () => fetch(`${node.url}/@x@${peerDomain}`)),
    );
    expect(new Set(again.map((v) => v.status))).toEqual(new Set([502]));
    await Promise.all(again.map((v) => v.text()));
    expect(userReads()).toBe(1);
  }, 60_000);

  it('100 concurrent views of a remote post cause one request for the post and one for its replies', async () => {
    const views = await Promise.all(
      Array.from({ length: 100 }, () => fetch(`${node.url}/posts/swarm:${peerDomain}:p1`)),
    );
    await Promise.all(views.map((v) => v.text()));
    expect(new Set(views.map((v) => v.status))).toEqual(new Set([502]));
    expect(peer.seen.filter((url) => url.startsWith('/api/swarm/posts/p1'))).toHaveLength(1);
    expect(peer.seen.filter((url) => url.startsWith('/api/swarm/replies'))).toHaveLength(1);
  }, 60_000);

  it('a port that refuses and a peer that never answers get the same answer', async () => {
    const answers = await Promise.all(
      [peerDomain, closedDomain].map(async (domain) => {
        const res = await fetch(`${node.url}/@x@${domain}`);
        // The CSP nonce differs on every page; everything else must not.
        const page = (await res.text()).replaceAll(domain, 'D').replace(/nonce="[^"]*"/g, 'nonce');
        return { status: res.status, said: page.includes('D is not available right now.'), page };
      }),
    );
    expect(answers[0]).toMatchObject({ status: 502, said: true });
    // Byte for byte the same page once the domain and the nonce are set aside.
    expect(answers[1]).toEqual(answers[0]);
  }, 60_000);

  it('anonymous visitors have a budget of requests per remote node', async () => {
    // A node of its own: its budget starts with these requests.
    const other = countingPeer();
    const port = await freePort();
    other.server.listen(port, '127.0.0.1');
    await once(other.server, 'listening');
    try {
      const statuses: number[] = [];
      for (let i = 0; i < VISITOR_FETCH.perDomainPerMinute + 10; i++) {
        const res = await fetch(`${node.url}/@n${i}@localhost:${port}`);
        await res.text();
        statuses.push(res.status);
      }
      expect(other.seen).toHaveLength(VISITOR_FETCH.perDomainPerMinute);
      expect(statuses.filter((s) => s === 404)).toHaveLength(VISITOR_FETCH.perDomainPerMinute);
      expect(statuses.filter((s) => s === 502)).toHaveLength(10);
    } finally {
      other.server.close();
    }
  }, 60_000);
});
