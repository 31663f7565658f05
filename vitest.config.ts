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
    testTimeout: 30_000,
    hookTimeout: 120_000,
  },
});
