import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// One run covers every package. Each test file gets its own database (see @swarm/db/testing),
// so files can run in parallel; the browser tests start real nodes on their own ports.
export default defineConfig({
  test: {
    include: [
      'packages/*/src/**/*.test.ts',
      'packages/*/test/**/*.test.ts',
      'apps/gateway/src/**/*.test.ts',
      'apps/gateway/test/**/*.test.ts',
      'apps/web/test/**/*.test.ts',
      'deploy/**/*.test.ts',
    ],
    // Most of a test file's time is spent waiting on the nodes and browsers it starts, so two
    // files at once even on two cores (Vitest's default there is one): the suite takes about
    // 13 min per database instead of 22 on the CI machine (docs/testing.md).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    testTimeout: 30_000,
    hookTimeout: 120_000,
  },
});
