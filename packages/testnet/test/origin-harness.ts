import { once } from 'node:events';
import type { Server } from 'node:http';
import { createOriginConfirmationWorker, type NodeOverrides } from '@swarm/domain';
import { createHttpServer } from '@swarm/gateway';
import { freePort } from '../src/node-process.ts';
import { createTestNode, type ManualClock, type TestNode } from './harness.ts';

// What the origin-profile swarm tests share: one of our nodes (in-process gateway, its own
// database) on a real loopback port, so that a fake origin peer (src/origin-peer.ts) reaches it
// over HTTP and it reaches the fake.

export const ORIGIN_TEST_ADMIN_TOKEN = 'origin-profile-test-admin-token-0123456789';

export interface OurNode {
  t: TestNode;
  domain: string;
  server: Server;
  /** Judges the held origin-profile effects that are due on the clock, until none is. */
  confirmHeld(): Promise<void>;
  close(): Promise<void>;
}

export async function ourNodeOnPort(
  clock: ManualClock,
  env: Record<string, string> = {},
  overrides: Pick<NodeOverrides, 'originConfirmation'> = {},
): Promise<OurNode> {
  const port = await freePort();
  const domain = `localhost:${port}`;
  const t = await createTestNode(
    {
      SWARM_DOMAIN: domain,
      SWARM_DEV: '1',
      SWARM_RATE_LIMIT_PER_MIN: '1000000',
      ADMIN_TOKEN: ORIGIN_TEST_ADMIN_TOKEN,
      ...env,
    },
    { clock, ...overrides },
  );
  const server = createHttpServer({ fetch: t.app.fetch });
  server.listen(port, '127.0.0.1');
  await once(server, 'listening');
  const worker = createOriginConfirmationWorker({ node: t.node });
  return {
    t,
    domain,
    server,
    confirmHeld: () => worker.processAll(),
    close: async () => {
      await worker.stop();
      server.closeAllConnections();
      server.close();
      await t.close();
    },
  };
}
