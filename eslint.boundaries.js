// Who may import whom (docs/architecture.md "Layers"), checked by `pnpm lint`.
// `contract` <- `domain` -> `db`; `auth` -> `db`; `api` -> `domain`, `auth`; the apps are the
// entry points that compose a node, so they may use what they wire (the gateway's CLI reads the
// database for backups, its admin API creates accounts); `web` and `gateway` never import each
// other; `testnet` is for tests only and takes the apps as arguments. Every package may use
// `contract`, the leaf. Tests may also use `@swarm/testnet`, never another package's files by
// relative path.

/** Each layer: its folder and the workspace packages its source may import. */
export const LAYERS = {
  contract: { dir: 'packages/contract', may: [] },
  db: { dir: 'packages/db', may: [] },
  domain: { dir: 'packages/domain', may: ['contract', 'db'] },
  auth: { dir: 'packages/auth', may: ['contract', 'db'] },
  api: { dir: 'packages/api', may: ['contract', 'domain', 'auth'] },
  'client-api': { dir: 'packages/client-api', may: ['contract', 'domain', 'auth'] },
  gateway: { dir: 'apps/gateway', may: ['contract', 'domain', 'auth', 'db'] },
  web: { dir: 'apps/web', may: ['contract', 'domain', 'auth', 'api', 'client-api'] },
  testnet: { dir: 'packages/testnet', may: ['contract', 'db', 'domain', 'auth'] },
};

/** What a test of each layer may import besides its layer's own list. */
export const TESTS_MAY = {
  contract: [],
  db: [],
  domain: ['testnet'],
  // Auth's tests take the in-memory limits the node context would inject.
  auth: ['domain'],
  // The api's and web app's tests check effects through peer gateways (the harness's network).
  api: ['db', 'testnet', 'gateway'],
  // Its process tests start a real node (the harness) and drive it with real client libraries.
  'client-api': ['testnet'],
  gateway: ['testnet'],
  web: ['db', 'testnet', 'gateway'],
  // The swarm tests and benchmarks run whole nodes: gateway and api included.
  testnet: ['gateway', 'api'],
};

const TEST_FILES = ['test/**', 'bench/**', 'src/**/*.test.ts'];
const CODE = '**/*.{ts,js,svelte}';

/** A relative path that climbs out of its package into another one. */
const CROSS_PACKAGE_PATH = {
  regex:
    '^(\\.\\./)+(packages|apps)/|^(\\.\\./){2,}(contract|db|domain|auth|api|client-api|testnet|gateway|web)/',
  message:
    'Import another workspace package by its name (@swarm/…), not by a relative path into its files.',
};

function restrictions(layer, may) {
  const forbidden = Object.keys(LAYERS).filter((other) => other !== layer && !may.includes(other));
  return [
    'error',
    {
      patterns: [
        ...forbidden.map((other) => ({
          group: [`@swarm/${other}`, `@swarm/${other}/*`],
          message: `${layer} may not import ${other} (docs/architecture.md, Layers).`,
        })),
        CROSS_PACKAGE_PATH,
      ],
    },
  ];
}

/** ESLint flat-config entries: one for each layer's source, one for its tests. */
export const boundaries = Object.entries(LAYERS).flatMap(([layer, { dir, may }]) => [
  {
    files: [`${dir}/${CODE}`],
    ignores: TEST_FILES.map((glob) => `${dir}/${glob}`),
    rules: { 'no-restricted-imports': restrictions(layer, may) },
  },
  {
    files: TEST_FILES.map(
      (glob) => `${dir}/${glob.endsWith('.ts') ? glob : `${glob.slice(0, -3)}/${CODE}`}`,
    ),
    rules: { 'no-restricted-imports': restrictions(layer, [...may, ...TESTS_MAY[layer]]) },
  },
]);
