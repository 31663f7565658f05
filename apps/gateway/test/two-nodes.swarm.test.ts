import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeListResponseSchema } from '@swarm/contract';
import { freePort, startNodeProcess, withMigratedDataDir, type NodeProcess } from '@swarm/testnet';

const ADMIN_TOKEN = 'two-nodes-test-admin-token-0123456789';

// Two nodes as an operator starts them (the entry point, each with its own embedded database)
// talking over real sockets: signed announce and gossip through the SSRF guard in dev mode.
describe('two nodes on real ports', () => {
  let dataDir: string;
  let alpha: NodeProcess;
  let beta: NodeProcess;
  let alphaUrl: string;
  let betaUrl: string;
  let alphaDomain: string;
  let betaDomain: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'swarm-two-'));
    const [pa, pb] = [await freePort(), await freePort()];
    alphaDomain = `localhost:${pa}`;
    betaDomain = `localhost:${pb}`;
    alphaUrl = `http://127.0.0.1:${pa}`;
    betaUrl = `http://127.0.0.1:${pb}`;
    const common = { SWARM_DEV: '1', ADMIN_TOKEN, SWARM_GOSSIP_INTERVAL_MS: '3600000' };
    alpha = await startNodeProcess(
      await withMigratedDataDir({
        ...common,
        PORT: String(pa),
        DATA_DIR: join(dataDir, 'alpha'),
        SWARM_NODE_NAME: 'Alpha',
      }),
      [],
    );
    // beta names alpha as its seed and announces itself on start.
    beta = await startNodeProcess(
      await withMigratedDataDir({
        ...common,
        PORT: String(pb),
        DATA_DIR: join(dataDir, 'beta'),
        SWARM_NODE_NAME: 'Beta',
        SWARM_SEEDS: alphaDomain,
      }),
      [],
    );
  });

  afterAll(async () => {
    await Promise.all([alpha?.stop(), beta?.stop()]);
    await rm(dataDir, { recursive: true, force: true });
  });

  async function knownNodes(url: string) {
    const res = await fetch(`${url}/api/swarm/nodes?stats=true`);
    expect(res.status).toBe(200);
    return nodeListResponseSchema.parse(await res.json());
  }

  async function admin(url: string, body: object) {
    const res = await fetch(`${url}/api/swarm/nodes`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN_TOKEN}` },
      body: JSON.stringify(body),
    });
    return {
      status: res.status,
      body: (await res.json()) as { ok: boolean; results: { domain: string; ok: boolean }[] },
    };
  }

  it('find each other through the seed and exchange signed gossip', async () => {
    // The start-up announcement runs in the background; an explicit one makes the test
    // independent of its timing and reports per peer.
    const announced = await admin(betaUrl, { action: 'announce' });
    expect(announced.status).toBe(200);
    expect(announced.body.results).toContainEqual(
      expect.objectContaining({ domain: alphaDomain, ok: true }),
    );

    const gossip = await admin(betaUrl, { action: 'gossip', domain: alphaDomain });
    expect(gossip.status).toBe(200);
    expect(gossip.body.results).toContainEqual(
      expect.objectContaining({ domain: alphaDomain, ok: true }),
    );

    const atAlpha = await knownNodes(alphaUrl);
    expect(atAlpha.nodes.map((n) => n.domain)).toContain(betaDomain);
    expect(atAlpha.nodes.find((n) => n.domain === betaDomain)?.name).toBe('Beta');
    const atBeta = await knownNodes(betaUrl);
    expect(atBeta.nodes.map((n) => n.domain)).toContain(alphaDomain);
  });

  it('refuses admin actions without the token over HTTP', async () => {
    const res = await fetch(`${alphaUrl}/api/swarm/nodes`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ action: 'addSeed', domain: 'nowhere.example', priority: 1 }),
    });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ code: 'UNAUTHORIZED' });
  });
});
