import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readinessSchema } from '@swarm/contract';
import {
  ALPHA,
  BETA,
  createTwoNodes,
  TEST_NETWORK_ADMIN_TOKEN,
  type TestNetwork,
} from './harness.ts';

// What the node's metrics count, driven in-process (the process-level tests check the HTTP
// side): gossip rounds and exchanges, delivery attempts by result, the outbox and registry
// gauges; and readiness turning false when the node begins to shut down.

const auth = { authorization: `Bearer ${TEST_NETWORK_ADMIN_TOKEN}` };

describe('metrics of a node at work', () => {
  let net: TestNetwork;

  beforeAll(async () => {
    ({ net } = await createTwoNodes({ alpha: { seeds: [BETA] }, beta: { seeds: [ALPHA] } }));
    await net.announceAll();
  });
  afterAll(async () => {
    await net?.close();
  });

  async function metricsOf(domain: string): Promise<string> {
    const res = await net.node(domain).request('/api/swarm/metrics', { headers: auth });
    expect(res.status).toBe(200);
    return res.text();
  }
  const value = (text: string, series: string) => {
    const line = text.split('\n').find((l) => l.startsWith(`${series} `));
    return line === undefined ? undefined : Number(line.slice(series.length + 1));
  };

  it('counts gossip rounds, their exchanges and durations, and known nodes by state', async () => {
    const before = await metricsOf('alpha.test');
    expect(value(before, 'swarm_gossip_rounds_total{result="ok"}')).toBe(0);
    await net.round();
    const after = await metricsOf('alpha.test');
    expect(value(after, 'swarm_gossip_rounds_total{result="ok"}')).toBe(1);
    expect(value(after, 'swarm_gossip_round_duration_seconds_count')).toBe(1);
    expect(value(after, 'swarm_gossip_exchanges_total{result="ok"}')).toBeGreaterThanOrEqual(1);
    expect(value(after, 'swarm_registry_nodes{state="active"}')).toBe(1);
  });

  it('counts delivery attempts by result and shows the outbox', async () => {
    const alpha = net.node('alpha.test');
    net.network.drop('gamma.test');
    const ids = await alpha.node.db.prisma.$transaction(async (tx) => [
      // beta refuses a like without its fields: final.
      await alpha.node.delivery.enqueue(tx, {
        targetDomain: 'beta.test',
        kind: 'like',
        body: { nothing: true },
      }),
      // gamma does not answer: kept for a retry.
      await alpha.node.delivery.enqueue(tx, {
        targetDomain: 'gamma.test',
        kind: 'like',
        body: { nothing: true },
      }),
    ]);
    await alpha.node.delivery.attempt(ids);
    const text = await metricsOf('alpha.test');
    expect(value(text, 'swarm_deliveries_total{result="failed"}')).toBe(1);
    expect(value(text, 'swarm_deliveries_total{result="retry"}')).toBe(1);
    expect(value(text, 'swarm_deliveries_total{result="delivered"}')).toBe(0);
    expect(value(text, 'swarm_outbox_rows{state="failed"}')).toBe(1);
    expect(value(text, 'swarm_outbox_rows{state="pending"}')).toBe(1);
    expect(value(text, 'swarm_outbox_oldest_due_age_seconds')).toBe(0);
    // An hour later the retry is long due, and the gauge says for how long.
    net.clock.advance(60 * 60_000);
    const later = await metricsOf('alpha.test');
    expect(value(later, 'swarm_outbox_oldest_due_age_seconds')).toBeGreaterThan(30 * 60);
  });

  it('keeps one registry per node: beta counted nothing of alpha’s', async () => {
    const text = await metricsOf('beta.test');
    expect(value(text, 'swarm_deliveries_total{result="failed"}')).toBe(0);
  });

  it('turns readiness false once the node begins shutting down', async () => {
    const beta = net.node('beta.test');
    const ready = await beta.request('/api/swarm/readyz');
    expect(ready.status).toBe(200);
    beta.node.lifecycle.beginShutdown();
    const res = await beta.request('/api/swarm/readyz');
    expect(res.status).toBe(503);
    expect(readinessSchema.parse(await res.json())).toEqual({
      status: 'not ready',
      checks: { database: 'ok', migrations: 'ok', lifecycle: 'failing' },
      reasons: ['shutting down'],
    });
    // Liveness is not readiness.
    expect((await beta.request('/api/swarm/livez')).status).toBe(200);
  });
});
