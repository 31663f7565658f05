import { afterEach, describe, expect, it } from 'vitest';
import { createTestNetwork, type TestNetwork } from './harness.ts';

// The multi-node harness at work: discovery, convergence and failure handling driven only
// through `createTestNetwork` (rounds, faults, the shared manual clock).

let net: TestNetwork | undefined;
afterEach(async () => {
  await net?.close();
  net = undefined;
});

const bound = (n: number) => Math.ceil(Math.log2(n)) + 3;

async function peerRow(from: TestNetwork, domain: string, peer: string) {
  return from.node(domain).node.db.prisma.swarmNode.findUniqueOrThrow({ where: { domain: peer } });
}

describe('createTestNetwork', () => {
  it(
    'three nodes bootstrapped from a seed converge; after the seed dies a newcomer joins through another node',
    { timeout: 120_000 },
    async () => {
      net = await createTestNetwork({
        nodes: [
          { domain: 'seed.test', handles: ['sam'] },
          { domain: 'alpha.test', seeds: ['seed.test'], handles: ['alice', 'anna'] },
          { domain: 'beta.test', seeds: ['seed.test'], handles: ['bob'] },
          { domain: 'gamma.test', seeds: ['seed.test'], handles: ['gina'] },
        ],
      });
      expect(await net.converged()).toBe(false);
      const rounds = await net.roundsUntilConverged(bound(4) + 2);
      expect(rounds).toBeLessThanOrEqual(bound(4));

      net.network.drop('seed.test');
      const delta = await net.add({
        domain: 'delta.test',
        seeds: ['alpha.test'],
        handles: ['dave'],
      });
      expect(net.live().map((n) => n.domain)).toEqual([
        'alpha.test',
        'beta.test',
        'gamma.test',
        'delta.test',
      ]);
      expect(await net.converged()).toBe(false);
      const joined = await delta.scheduler.announce();
      expect(joined).toEqual([expect.objectContaining({ domain: 'alpha.test', ok: true })]);
      const after = await net.roundsUntilConverged(bound(4) + 4);
      expect(after).toBeLessThanOrEqual(bound(4) + 1);
      await net.processAll();
      // Requests to the dead seed were refused, never delivered.
      const toSeed = net.network.requests.filter((r) => r.domain === 'seed.test' && r.fault);
      expect(toSeed.every((r) => r.fault === 'drop')).toBe(true);
    },
  );

  it(
    'a hung node becomes inactive after 5 failed contacts, is re-probed on backoff and returns after heal()',
    { timeout: 60_000 },
    async () => {
      net = await createTestNetwork({
        nodes: [{ domain: 'alpha.test' }, { domain: 'beta.test', handles: ['bob'] }],
      });
      await net.node('alpha.test').node.registry.probe('beta.test', 'admin');
      await net.round();
      expect(await net.converged()).toBe(true);

      net.network.hang('beta.test');
      expect(net.live().map((n) => n.domain)).toEqual(['alpha.test']);
      for (let i = 1; i <= 5; i++) {
        const reports = await net.round();
        expect(reports.get('alpha.test')?.gossip).toEqual([
          expect.objectContaining({ domain: 'beta.test', ok: false }),
        ]);
        expect(await peerRow(net, 'alpha.test', 'beta.test')).toMatchObject({
          consecutiveFailures: i,
          isActive: i < 5,
        });
      }
      const timedOut = net.network.requests.filter((r) => r.fault === 'hang');
      expect(timedOut.length).toBeGreaterThanOrEqual(5);

      // Not due before the backoff; due after it: probed, still hung, backoff grows.
      const inactive = await peerRow(net, 'alpha.test', 'beta.test');
      expect(inactive.nextProbeAt).not.toBeNull();
      expect((await net.round()).get('alpha.test')?.probes).toEqual([]);
      net.clock.set(inactive.nextProbeAt!);
      expect((await net.round()).get('alpha.test')?.probes).toEqual([
        expect.objectContaining({ domain: 'beta.test', ok: false }),
      ]);
      const again = await peerRow(net, 'alpha.test', 'beta.test');
      expect(again.isActive).toBe(false);
      expect(again.nextProbeAt!.getTime() - net.clock.now().getTime()).toBeGreaterThan(
        inactive.nextProbeAt!.getTime() - inactive.updatedAt.getTime() - 1,
      );

      net.network.heal('beta.test');
      net.clock.set(again.nextProbeAt!);
      const back = (await net.round()).get('alpha.test');
      expect(back?.probes).toEqual([expect.objectContaining({ domain: 'beta.test', ok: true })]);
      expect(await peerRow(net, 'alpha.test', 'beta.test')).toMatchObject({
        isActive: true,
        consecutiveFailures: 0,
        nextProbeAt: null,
      });
      expect(await net.converged()).toBe(true);
    },
  );

  it('a node answering 503 counts as a failed contact', async () => {
    net = await createTestNetwork({
      nodes: [{ domain: 'alpha.test' }, { domain: 'beta.test' }],
    });
    const alpha = net.node('alpha.test');
    await alpha.node.registry.probe('beta.test', 'admin');
    net.network.fail5xx('beta.test');
    const report = (await net.round()).get('alpha.test');
    expect(report?.gossip).toEqual([expect.objectContaining({ domain: 'beta.test', ok: false })]);
    expect(await peerRow(net, 'alpha.test', 'beta.test')).toMatchObject({
      consecutiveFailures: 1,
      isActive: true,
    });
    expect(
      await alpha.node.db.prisma.swarmSyncLog.count({
        where: { remoteDomain: 'beta.test', success: false },
      }),
    ).toBe(1);
    expect(() => net!.network.fail5xx('beta.test', 404)).toThrow(RangeError);
  });

  it('garbage answers never crash a round; they count as failed contacts', async () => {
    net = await createTestNetwork({
      nodes: [{ domain: 'alpha.test' }, { domain: 'beta.test' }, { domain: 'gamma.test' }],
    });
    const alpha = net.node('alpha.test');
    await alpha.node.registry.probe('beta.test', 'admin');
    await alpha.node.registry.probe('gamma.test', 'admin');
    // Four bad answers each: a fifth failure would make them inactive (tested above).
    const bodies = ['<html>oops</html>', '{"nodes": 5}', 'null', '{"received": "x"'];
    const deep = '['.repeat(500) + JSON.stringify('y'.repeat(100_000)) + ']'.repeat(500);
    for (const [i, body] of bodies.entries()) {
      net.network.garbage('beta.test', body);
      net.network.garbage('gamma.test', i % 2 ? deep : JSON.stringify({ nodes: 'x', handles: 7 }));
      const report = (await net.round()).get('alpha.test');
      expect(report?.skipped).toBe(false);
      expect(report?.gossip.map((g) => [g.domain, g.ok]).sort()).toEqual([
        ['beta.test', false],
        ['gamma.test', false],
      ]);
      for (const peer of ['beta.test', 'gamma.test']) {
        expect(await peerRow(net, 'alpha.test', peer)).toMatchObject({
          consecutiveFailures: i + 1,
          isActive: true,
        });
      }
    }
    // Healed, the next round works again.
    net.network.heal('beta.test');
    net.network.heal('gamma.test');
    const ok = (await net.round()).get('alpha.test');
    expect(
      ok?.gossip
        .filter((g) => g.ok)
        .map((g) => g.domain)
        .sort(),
    ).toEqual(['beta.test', 'gamma.test']);
  });

  it('a short delay advances the shared clock; a delay past the peer timeout is a hang', async () => {
    net = await createTestNetwork({
      nodes: [{ domain: 'alpha.test' }, { domain: 'beta.test' }],
    });
    const alpha = net.node('alpha.test');
    await alpha.node.registry.probe('beta.test', 'admin');
    net.network.delay('beta.test', 500);
    const before = net.clock.now().getTime();
    const report = (await net.round()).get('alpha.test');
    expect(report?.gossip).toEqual([expect.objectContaining({ domain: 'beta.test', ok: true })]);
    expect(net.clock.now().getTime() - before).toBeGreaterThanOrEqual(500);

    net.network.delay('beta.test', net.peerTimeoutMs);
    expect(net.live().map((n) => n.domain)).toEqual(['alpha.test']);
    const slow = (await net.round()).get('alpha.test');
    expect(slow?.gossip).toEqual([expect.objectContaining({ domain: 'beta.test', ok: false })]);
    expect(net.network.requests.at(-1)?.fault).toBe('hang');
  });
});
