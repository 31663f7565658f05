import dns, { type LookupAddress } from 'node:dns';
import { once } from 'node:events';
import net, { type AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import {
  createTestNode,
  insertKeyedUser,
  signedInCaller,
  trpcFailure,
  type KeyedUser,
  type TestNode,
} from './harness.ts';

// Red team (issue 22): SSRF with SWARM_DEV=0, and DNS rebinding. A node in production mode, with
// its real node:http(s) transport, asked for a link preview, an image through the media proxy
// and a peer's JSON. The DNS is fake at its boundary: the node's resolver (`resolveHost`) and
// Node's own `dns.lookup` (what a socket would use without a pinned lookup) answer from one
// table. `rebind.example` answers a public address to the first question and 127.0.0.1 to every
// later one, where a trap server counts connections. The request must go to the address that
// was vetted: nothing may ever reach the trap.

/** example.com's address (IANA): public, so the guard lets it through; nothing answers here. */
const PUBLIC = '93.184.215.14';

const answers = new Map<string, string[][]>();
const asked: string[] = [];
let socketLookups = 0;

function answer(host: string): string[] {
  asked.push(host);
  const queue = answers.get(host);
  if (!queue)
    throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  return queue.length > 1 ? queue.shift()! : queue[0]!;
}

const fakeLookup = ((
  host: string,
  options: dns.LookupOptions | ((...args: unknown[]) => void),
  callback?: (...args: unknown[]) => void,
) => {
  socketLookups++;
  const done = (typeof options === 'function' ? options : callback)!;
  const all = typeof options === 'object' && options.all === true;
  try {
    const entries: LookupAddress[] = answer(host).map((address) => ({
      address,
      family: net.isIP(address),
    }));
    if (all) done(null, entries);
    else done(null, entries[0]!.address, entries[0]!.family);
  } catch (error) {
    done(error);
  }
}) as typeof dns.lookup;

let trap: net.Server;
let trapped = 0;
let port: number;
let node: TestNode;
let alice: KeyedUser;

beforeAll(async () => {
  trap = net.createServer((socket) => {
    trapped++;
    socket.destroy();
  });
  trap.listen(0, '127.0.0.1');
  await once(trap, 'listening');
  port = (trap.address() as AddressInfo).port;
  vi.spyOn(dns, 'lookup').mockImplementation(fakeLookup);
  // Production mode (SWARM_DEV=0 is the default), the real transport, only DNS is ours.
  node = await createTestNode(
    { SWARM_DEV: '0' },
    { resolveHost: async (host) => answer(host), peerTimeoutMs: 2_000 },
  );
  alice = await insertKeyedUser(node.node, 'alice');
});

afterAll(async () => {
  vi.restoreAllMocks();
  await node?.close();
  trap?.close();
});

beforeEach(() => {
  answers.clear();
  asked.length = 0;
});

const rebinding = (host: string) => answers.set(host, [[PUBLIC], ['127.0.0.1']]);

function noContact() {
  expect(trapped, 'a connection reached the private address').toBe(0);
  // The socket never asked DNS again: it went to what the guard had vetted.
  expect(socketLookups).toBe(0);
}

describe('DNS answers that change between the check and the connection', () => {
  it('a link preview connects to the vetted public address, never to the rebound one', async () => {
    rebinding('rebind.example');
    const failed = await trpcFailure(
      signedInCaller(node.node, alice.user).posts.linkPreview({
        url: `https://rebind.example:${port}/page`,
      }),
    );
    expect(failed.code).toBe('BAD_GATEWAY');
    expect(asked).toEqual(['rebind.example']);
    noContact();
  });

  it('the media proxy does the same', async () => {
    rebinding('images.rebind.example');
    const url = `https://images.rebind.example:${port}/a.png`;
    const src = new URL(node.node.media.src(url)!, 'http://x');
    const loaded = await node.node.media.load({
      url: src.searchParams.get('url'),
      sig: src.searchParams.get('sig'),
    });
    expect(loaded).toMatchObject({ ok: false, status: 502, code: 'PEER_UNAVAILABLE' });
    expect(asked).toEqual(['images.rebind.example']);
    noContact();
  });

  it('and so does a request to a peer node', async () => {
    rebinding('peer.rebind.example');
    const result = await node.node.peers.getJson(
      `peer.rebind.example:${port}`,
      '/api/swarm/info',
      z.unknown(),
    );
    expect(result.ok).toBe(false);
    expect(asked).toEqual(['peer.rebind.example']);
    noContact();
  });
});

describe('private addresses with SWARM_DEV=0', () => {
  it('refuses a name with any private answer, even next to a public one', async () => {
    answers.set('mixed.example', [[PUBLIC, '127.0.0.1']]);
    answers.set('metadata.example', [['169.254.169.254']]);
    answers.set('mapped.example', [['::ffff:127.0.0.1']]);
    for (const host of ['mixed.example', 'metadata.example', 'mapped.example']) {
      const failed = await trpcFailure(
        signedInCaller(node.node, alice.user).posts.linkPreview({
          url: `https://${host}:${port}/`,
        }),
      );
      expect(failed, host).toMatchObject({ code: 'FORBIDDEN' });
      expect(failed.message).toMatch(/private or local address/);
    }
    noContact();
  });

  it('refuses loopback written in the URL in any spelling', async () => {
    for (const host of [
      'localhost',
      '127.0.0.1',
      '127.1',
      '2130706433',
      '0x7f.0.0.1',
      '[::1]',
      '[::ffff:127.0.0.1]',
      '[::ffff:7f00:1]',
    ]) {
      const url = `https://${host}:${port}/`;
      const failed = await trpcFailure(
        signedInCaller(node.node, alice.user).posts.linkPreview({ url }),
      );
      expect(failed.code, url).toBe('FORBIDDEN');
      const src = node.node.media.src(url);
      if (src) {
        const q = new URL(src, 'http://x').searchParams;
        expect(await node.node.media.load({ url: q.get('url'), sig: q.get('sig') })).toMatchObject({
          ok: false,
        });
      }
    }
    expect(asked).toEqual([]);
    noContact();
  });
});
