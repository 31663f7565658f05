import { availableParallelism } from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

// One run covers every package. Each test file gets its own database (see @swarm/db/testing),
// so files can run in parallel; the browser tests start real nodes on their own ports.
const roots = [
  'packages/*/src/**/',
  'packages/*/test/**/',
  'apps/gateway/src/**/',
  'apps/gateway/test/**/',
  'apps/web/test/**/',
  'deploy/**/',
];
const levels = '{int,swarm,browser,process}';
const unitFiles = roots.map((root) => `${root}*.test.ts`);
const levelFiles = roots.map((root) => `${root}*.${levels}.test.ts`);

// TEST_DATABASE_ONLY=1 (CI's Postgres pass, with TEST_DATABASE_URL): only the files whose
// behaviour depends on the database under test. The others ran in the PGlite pass and would
// run the very same code again (docs/testing.md "What runs on both databases"). A new file
// runs in both passes until it is listed here.
const databaseOnly = process.env.TEST_DATABASE_ONLY === '1';
const databaseIndependent = [
  // Page behaviour in Chromium. The SQL behind every page runs in the integration, swarm and
  // front-door files; live updates across processes on Postgres in live-events.process.
  '**/*.browser.test.ts',
  // Node processes on an embedded PGlite of their own whatever TEST_DATABASE_URL says, or no
  // database at all: the Postgres pass would repeat them unchanged.
  'apps/gateway/test/observability.int.test.ts',
  'apps/gateway/test/shutdown.int.test.ts',
  'apps/gateway/test/two-nodes.swarm.test.ts',
  'apps/web/test/discover.process.test.ts',
  'apps/web/test/visitor-fetch.process.test.ts',
  'apps/web/test/web-hardening.int.test.ts',
  'packages/testnet/test/origin-peer.int.test.ts',
  'packages/testnet/test/origin-web.swarm.test.ts',
  'packages/testnet/test/invite-guessing.process.test.ts',
  'packages/client-api/test/client-libraries.process.test.ts',
  'packages/client-api/test/oauth.process.test.ts',
  // Apps against nodes started as the README says (embedded PGlite whatever the pass): the
  // client API's SQL on Postgres runs in client-api.int and the domain's integration files.
  'packages/client-api/test/accounts.process.test.ts',
  'packages/client-api/test/notifications-search.process.test.ts',
  'packages/client-api/test/push.process.test.ts',
  'packages/client-api/test/statuses.process.test.ts',
  'packages/client-api/test/streaming.process.test.ts',
  // The proxy under test is a PGlite node process; its in-process peer only serves one profile
  // and post, reads that reads.swarm covers on both databases.
  'packages/testnet/test/media-proxy.swarm.test.ts',
  // Every route of the embedded node: on PGlite here; every route on Postgres is swept through
  // the production pair (front-door-production), and the routes' handlers are the same code.
  'packages/testnet/test/front-door-embedded.process.test.ts',
];

/**
 * The longest files start first, so that none runs alone at the end of a pass: the front-door
 * sweeps (4 to 5 min each), then the browser files (two nodes and Chromium), then the other
 * files that start node processes, then the rest in Vitest's own order. In a clean clone
 * Vitest knows no durations and would start the small front-door files last.
 */
class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (file: TestSpecification) => {
      const id = file.moduleId;
      if (id.includes('/front-door-')) return 0;
      if (id.endsWith('.browser.test.ts')) return 1;
      if (id.endsWith('.process.test.ts')) return 2;
      return 3;
    };
    return sorted
      .map((file, i) => ({ file, i, rank: rank(file) }))
      .sort((a, b) => a.rank - b.rank || a.i - b.i)
      .map((entry) => entry.file);
  }
}

export default defineConfig({
  test: {
    // Most of a test file's time is spent waiting on the nodes and browsers it starts, so two
    // files at once even on two cores (Vitest's default there is one): the suite takes about
    // 13 min per database instead of 22 on the CI machine (docs/testing.md).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    testTimeout: 30_000,
    sequence: { sequencer: LongestFirst },
    hookTimeout: 120_000,
    projects: [
      // Pure functions (no database, no process): one worker thread runs them one after the
      // other without a fresh module graph per file, which was most of their time.
      ...(databaseOnly
        ? []
        : [
            {
              extends: true as const,
              test: {
                name: 'unit',
                include: unitFiles,
                exclude: [...configDefaults.exclude, ...levelFiles],
                pool: 'threads' as const,
                isolate: false,
              },
            },
          ]),
      {
        extends: true,
        test: {
          name: 'levels',
          include: levelFiles,
          // The migrated templates of test databases and test nodes, built once before the files.
          globalSetup: ['packages/db/src/testing/global-setup.ts'],
          // A worker runs file after file on one module graph instead of a fresh one per file:
          // importing the node's packages was a third of the suite's time. Each file still makes
          // its own databases, nodes and processes and closes them (docs/testing.md).
          isolate: false,
          exclude: [...configDefaults.exclude, ...(databaseOnly ? databaseIndependent : [])],
        },
      },
    ],
  },
});
