import { afterEach, describe, expect, it } from 'vitest';
import type { HandleEntry } from '@swarm/contract';
import { HANDLE_BOUNDS, HINT_BOUNDS, handleCapFor } from '@swarm/domain';
import { createManualClock } from './harness.ts';
import { gossipTo, liveNodes, type LiveNode } from './live-gossip.ts';

// The flood attacks of issue 17 (items 1 and 2) over real sockets: every node below is a gateway
// on its own loopback port (live-gossip.ts). Invented domains do not resolve.

const { liveNode, closeAll } = liveNodes();

afterEach(closeAll);

const inventedNodes = (request: number, count: number) =>
  Array.from({ length: count }, (_, k) => ({
    domain: `f${request}n${k}.flood.example`,
    name: '',
    lastSeenAt: '2026-11-22T11:00:00.000Z',
  }));

async function unverifiedCounts(n: LiveNode) {
  const rows = await n.node.db.prisma.swarmNode.groupBy({
    by: ['discoveredVia'],
    where: { isVerified: false },
    _count: { _all: true },
  });
  return new Map(rows.map((r) => [r.discoveredVia, r._count._all]));
}

const sum = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);

describe('registry bounds under gossip floods (real HTTP)', () => {
  it('unsigned gossip of 30,000 invented domains stays within the unsigned pool; honest nodes are still learned, probed and kept; the flood is pruned', async () => {
    const clock = createManualClock();
    const victim = await liveNode(clock);
    const honest = await liveNode(clock, 3);
    const carol = await liveNode(clock, 1);

    // The attack: 10 unsigned requests of 3,000 invented domains, each naming another sender.
    for (let i = 0; i < 10; i++) {
      const res = await gossipTo(victim, {
        sender: `flood${i}.example`,
        nodes: inventedNodes(i, 3_000),
      });
      expect(res.status).toBe(200);
    }
    const afterFlood = await unverifiedCounts(victim);
    expect(sum(afterFlood)).toBeLessThanOrEqual(HINT_BOUNDS.unsigned);
    expect(sum(afterFlood)).toBeGreaterThan(0);
    expect(await victim.node.db.prisma.swarmNode.count()).toBe(sum(afterFlood));

    // An honest node announces itself signed: verified at once. It knows carol; its signed
    // gossip names carol, who is stored although the unsigned pool is full.
    expect(await carol.node.registry.announceTo(honest.domain, 'admin')).toMatchObject({
      ok: true,
    });
    expect(await honest.node.registry.announceTo(victim.domain, 'admin')).toMatchObject({
      ok: true,
    });
    const signed = await gossipTo(
      victim,
      {
        sender: honest.domain,
        nodes: [{ domain: carol.domain, name: 'Carol', lastSeenAt: clock.now().toISOString() }],
      },
      honest,
    );
    expect(signed.status).toBe(200);
    expect(
      await victim.node.db.prisma.swarmNode.findUnique({
        where: { domain: carol.domain },
        select: { isVerified: true, discoveredVia: true },
      }),
    ).toEqual({ isVerified: false, discoveredVia: `gossip:${honest.domain}` });

    // One round of probes: carol is reached although hundreds of flood hints are due; the flood
    // gets a bounded share of the probes.
    const probes = await victim.node.registry.probeDue();
    expect(probes).toContainEqual(expect.objectContaining({ domain: carol.domain, ok: true }));
    expect(probes.filter((p) => p.domain.endsWith('.example')).length).toBeLessThanOrEqual(
      HINT_BOUNDS.unsignedProbesPerRound,
    );

    // Hints that never answer are pruned: a day later none of the flood is left, the honest
    // nodes are.
    clock.advance(HINT_BOUNDS.pruneAfterMs + 1);
    await victim.node.registry.probeDue();
    expect(sum(await unverifiedCounts(victim))).toBe(0);
    const kept = await victim.node.db.prisma.swarmNode.findMany({
      select: { domain: true, isVerified: true, isActive: true },
      orderBy: { domain: 'asc' },
    });
    expect(kept).toEqual(
      [carol.domain, honest.domain]
        .sort()
        .map((domain) => ({ domain, isVerified: true, isActive: true })),
    );

    // With the pool emptied, a new flood is bounded again and a hint is learnt once more.
    const again = await gossipTo(victim, {
      sender: 'flood-again.example',
      nodes: inventedNodes(99, 3_000),
    });
    expect(again.status).toBe(200);
    // Its sender (a hint of its own) and at most one request's share of its mentions.
    expect(sum(await unverifiedCounts(victim))).toBe(1 + HINT_BOUNDS.unsignedPerRequest);
  });

  it('a hint whose probes keep failing is deleted at its sixth failed probe and can be heard of again', async () => {
    const clock = createManualClock();
    const victim = await liveNode(clock);
    expect(await victim.node.registry.noteHint('gone.example', 'gossip:peer.example')).toBe(true);
    const row = () =>
      victim.node.db.prisma.swarmNode.findUnique({ where: { domain: 'gone.example' } });
    for (let failed = 1; failed < HINT_BOUNDS.pruneAfterFailedProbes; failed++) {
      clock.set((await row())!.nextProbeAt!);
      expect(await victim.node.registry.probeDue()).toEqual([
        expect.objectContaining({ domain: 'gone.example', ok: false }),
      ]);
      expect(await row()).toMatchObject({ consecutiveFailures: failed, isVerified: false });
    }
    clock.set((await row())!.nextProbeAt!);
    await victim.node.registry.probeDue();
    expect(await row()).toBeNull();
    // Mentioned again: stored again (the process forgot it had a row).
    expect(await victim.node.registry.noteHint('gone.example', 'gossip:peer.example')).toBe(true);
  });

  it('one verified sender stores at most its per-source share of unverified hints', async () => {
    const clock = createManualClock();
    const victim = await liveNode(clock);
    const loud = await liveNode(clock);
    expect(await loud.node.registry.announceTo(victim.domain, 'admin')).toMatchObject({ ok: true });
    for (let i = 0; i < 2; i++) {
      const res = await gossipTo(
        victim,
        { sender: loud.domain, nodes: inventedNodes(i, 800) },
        loud,
      );
      expect(res.status).toBe(200);
    }
    expect((await unverifiedCounts(victim)).get(`gossip:${loud.domain}`)).toBe(
      HINT_BOUNDS.perSource,
    );
  });

  it('a signed peer flooding handle entries keeps at most its user count plus slack, one per did; an honest node that grew keeps every entry', async () => {
    const clock = createManualClock();
    const victim = await liveNode(clock);
    const attacker = await liveNode(clock, 2);
    // 120 users: more than the slack a node whose count we do not know yet gets.
    const big = await liveNode(clock, 120);
    expect(await attacker.node.registry.announceTo(victim.domain, 'admin')).toMatchObject({
      ok: true,
    });
    const entry = (handle: string, did: string, minute: number): HandleEntry => ({
      handle,
      did,
      nodeDomain: attacker.domain,
      updatedAt: new Date(Date.UTC(2026, 10, 22, 10, minute)).toISOString(),
    });

    // Five signed requests of 1,600 entries for its own domain, all with the same did.
    for (let r = 0; r < 5; r++) {
      const handles = Array.from({ length: 1_600 }, (_, k) =>
        entry(`h${r}x${k}`, 'did:key:zDnSame', r),
      );
      const res = await gossipTo(victim, { sender: attacker.domain, handles }, attacker);
      expect(res.status).toBe(200);
    }
    const same = await victim.node.db.prisma.handleRegistryEntry.findMany({
      where: { nodeDomain: attacker.domain },
    });
    expect(same).toHaveLength(1);
    expect(same[0]!.did).toBe('did:key:zDnSame');

    // Then 8,000 entries with distinct dids: capped at its reported user count plus slack,
    // the newest kept (a node's entries replace its earlier ones).
    for (let r = 0; r < 5; r++) {
      const handles = Array.from({ length: 1_600 }, (_, k) =>
        entry(`d${r}x${k}`, `did:key:zDnFlood${r}x${k}`, 10 + r),
      );
      const res = await gossipTo(victim, { sender: attacker.domain, handles }, attacker);
      expect(res.status).toBe(200);
    }
    const cap = handleCapFor(2);
    expect(cap).toBe(2 + HANDLE_BOUNDS.slackMin);
    const flood = await victim.node.db.prisma.handleRegistryEntry.findMany({
      where: { nodeDomain: attacker.domain },
      select: { handle: true },
    });
    expect(flood).toHaveLength(cap);
    expect(flood.every((e) => e.handle.startsWith('d4x'))).toBe(true);

    // The honest big node gossips its 120 users at first contact (we know no user count yet):
    // the node is asked for its info before anything is dropped, and every entry is kept.
    const res = await big.node.gossip.exchangeWith(victim.domain);
    expect(res).toMatchObject({ ok: true, handlesSent: 120 });
    expect(
      await victim.node.db.prisma.handleRegistryEntry.count({ where: { nodeDomain: big.domain } }),
    ).toBe(120);
    expect(
      await victim.node.db.prisma.swarmNode.findUnique({
        where: { domain: big.domain },
        select: { userCount: true },
      }),
    ).toEqual({ userCount: 120 });
  });
});
