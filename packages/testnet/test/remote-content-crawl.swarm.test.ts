import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crawlRule } from '@swarm/domain';
import {
  createTestNetwork,
  sessionUserByHandle,
  signedInCaller,
  type NetworkNode,
  type TestNetwork,
} from './harness.ts';

// The crawler of the swarm feed on a network of in-process nodes: alpha reads its peers' public
// timelines in the background within the budget its operator set (SWARM_CRAWL_PER_MIN),
// whatever the number of peers, rotating through them; what it reads is stored. Requests are
// counted in the network's log; time is the shared manual clock.

const PEERS = ['p1.test', 'p2.test', 'p3.test', 'p4.test', 'p5.test', 'p6.test'];
const PER_MINUTE = 3;

let net: TestNetwork;
let alpha: NetworkNode;

const timelineReads = () =>
  net.network.requests.filter(
    (r) => r.method === 'GET' && r.path.startsWith('/api/swarm/timeline'),
  );

beforeAll(async () => {
  net = await createTestNetwork({
    nodes: [
      { domain: 'alpha.test', env: { SWARM_CRAWL_PER_MIN: String(PER_MINUTE) } },
      ...PEERS.map((domain) => ({ domain, handles: [`u${domain.slice(1, 2)}`] })),
    ],
  });
  alpha = net.node('alpha.test');
  for (const domain of PEERS) {
    expect(await alpha.node.registry.probe(domain, 'admin')).toMatchObject({ ok: true });
    const member = net.node(domain);
    const user = await sessionUserByHandle(member.node, member.users[0]!.handle);
    await signedInCaller(member.node, user).posts.create({ content: `hello from ${domain}` });
  }
}, 120_000);

afterAll(async () => {
  await net?.close();
});

describe('the crawler', () => {
  it('stays within its budget whatever the number of peers, and rotates through all of them', async () => {
    const minutes = 6;
    const started = timelineReads().length;
    for (let tick = 0; tick < (minutes * 60) / 10; tick++) {
      await alpha.node.remoteContent.crawler.crawlDue();
      net.clock.advance(10_000);
    }
    const reads = timelineReads().slice(started);
    // A token bucket: at most its burst at once, then PER_MINUTE a minute. Unbounded, six peers
    // read every tick would have been 216 requests.
    const budget = crawlRule(PER_MINUTE).burst + PER_MINUTE * minutes;
    expect(reads.length).toBeLessThanOrEqual(budget);
    expect(reads.length).toBeGreaterThanOrEqual(budget - 2);
    // Rotation: every peer once before any twice, then each again in turn.
    expect(new Set(reads.slice(0, PEERS.length).map((r) => r.domain))).toEqual(new Set(PEERS));
    const perPeer = PEERS.map((domain) => reads.filter((r) => r.domain === domain).length);
    expect(Math.min(...perPeer)).toBeGreaterThanOrEqual(2);
    expect(Math.max(...perPeer) - Math.min(...perPeer)).toBeLessThanOrEqual(1);

    // What it read is stored, as copies with their authors on their nodes.
    const copies = await alpha.node.db.prisma.post.findMany({
      where: { apId: { not: null }, fetchedAt: { not: null } },
      select: { content: true, remoteAuthor: { select: { nodeDomain: true } } },
    });
    expect(copies.map((c) => c.content).sort()).toEqual(PEERS.map((d) => `hello from ${d}`).sort());
    expect(copies.every((c) => c.content === `hello from ${c.remoteAuthor?.nodeDomain}`)).toBe(
      true,
    );
  });

  it('backs off a peer that fails and reads it again once it is back', async () => {
    net.network.drop('p3.test');
    const failed = async () =>
      (await alpha.node.db.prisma.peerCrawl.findUniqueOrThrow({ where: { domain: 'p3.test' } }))
        .failures;
    for (let tick = 0; tick < 60 && (await failed()) === 0; tick++) {
      await alpha.node.remoteContent.crawler.crawlDue();
      net.clock.advance(10_000);
    }
    expect(await failed()).toBe(1);
    net.network.heal('p3.test');
    const member = net.node('p3.test');
    const user = await sessionUserByHandle(member.node, member.users[0]!.handle);
    await signedInCaller(member.node, user).posts.create({ content: 'p3 is back' });
    for (let tick = 0; tick < 60 && (await failed()) > 0; tick++) {
      await alpha.node.remoteContent.crawler.crawlDue();
      net.clock.advance(10_000);
    }
    expect(await failed()).toBe(0);
    const back = await alpha.node.db.prisma.post.findFirst({
      where: { content: 'p3 is back', fetchedAt: { not: null } },
    });
    expect(back).not.toBeNull();
  });
});
