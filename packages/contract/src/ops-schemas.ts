import { z } from 'zod';

/**
 * Health of one process (docs/deployment.md "Health"): the web app answers at `/livez`,
 * `/readyz`, `/metrics`, the gateway at `/api/swarm/livez`, `/api/swarm/readyz`,
 * `/api/swarm/metrics`. In embedded mode one process answers all of them.
 */
export const OPS_PATHS = {
  web: { livez: '/livez', readyz: '/readyz', metrics: '/metrics' },
  gateway: {
    livez: '/api/swarm/livez',
    readyz: '/api/swarm/readyz',
    metrics: '/api/swarm/metrics',
  },
} as const;

/** `GET …/livez`: the process is up and its event loop answers (no dependency is checked). */
export const livenessSchema = z.object({ status: z.literal('ok') });

const checkState = z.enum(['ok', 'failing']);

/** `GET …/readyz`: 200 when ready, 503 with the same shape when not. */
export const readinessSchema = z.object({
  status: z.enum(['ready', 'not ready']),
  checks: z.object({
    database: checkState,
    migrations: checkState,
    lifecycle: checkState,
  }),
  reasons: z.array(z.string()),
});

export type Readiness = z.output<typeof readinessSchema>;
