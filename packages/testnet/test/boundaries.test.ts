import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../src/front-door.ts';

// The layer rule of eslint.boundaries.js, as `pnpm lint` (a CI step) applies it: each file is
// linted in the place it would live, with the workspace's own config.
const eslint = new ESLint({ cwd: repoRoot });

async function refusals(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return result!.messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

describe('layer boundaries (docs/architecture.md)', () => {
  it.each([
    [
      'packages/domain/src/x.ts',
      "import { createAuthServices } from '@swarm/auth';",
      'domain may not import auth',
    ],
    [
      'packages/domain/src/x.ts',
      "import type { AppRouter } from '@swarm/api';",
      'domain may not import api',
    ],
    [
      'packages/auth/src/x.ts',
      "import type { Limits } from '@swarm/domain';",
      'auth may not import domain',
    ],
    [
      'packages/contract/src/x.ts',
      "import { createDb } from '@swarm/db';",
      'contract may not import db',
    ],
    [
      'packages/db/src/x.ts',
      "export { parseConfig } from '@swarm/domain';",
      'db may not import domain',
    ],
    ['packages/api/src/x.ts', "import { createDb } from '@swarm/db';", 'api may not import db'],
    [
      'packages/client-api/src/x.ts',
      "import { appRouter } from '@swarm/api';",
      'client-api may not import api',
    ],
    [
      'apps/web/src/lib/x.ts',
      "import { createGatewayApp } from '@swarm/gateway';",
      'web may not import gateway',
    ],
    [
      'apps/web/src/routes/x/+page.svelte',
      '<script lang="ts">import { createHttpServer } from \'@swarm/gateway\';</script>',
      'web may not import gateway',
    ],
    [
      'apps/gateway/src/x.ts',
      "import { handler } from '@swarm/web';",
      'gateway may not import web',
    ],
    [
      'apps/gateway/src/x.ts',
      "import { appRouter } from '@swarm/api';",
      'gateway may not import api',
    ],
    [
      'packages/testnet/src/x.ts',
      "import { createGatewayApp } from '@swarm/gateway';",
      'testnet may not import gateway',
    ],
    [
      'packages/domain/src/x.ts',
      "import { createTestNode } from '@swarm/testnet';",
      'domain may not import testnet',
    ],
    [
      'apps/gateway/src/x.ts',
      "import { createTestNode } from '@swarm/testnet';",
      'gateway may not import testnet',
    ],
    [
      'packages/api/test/x.test.ts',
      "import { createTestNode } from '../../testnet/src/index.ts';",
      'by its name',
    ],
    [
      'apps/web/test/x.test.ts',
      "import { startNodeProcess } from '../../../packages/testnet/src/node-process.ts';",
      'by its name',
    ],
  ])('%s: %s is refused', async (file, code, reason) => {
    const messages = await refusals(file, code);
    expect(messages).toHaveLength(1);
    expect(messages[0]).toContain(reason);
  });

  it.each([
    ['packages/domain/src/x.ts', "import { createDb } from '@swarm/db';"],
    ['packages/auth/src/x.ts', "import { createDb } from '@swarm/db';"],
    ['packages/api/src/x.ts', "import { createAuthServices } from '@swarm/auth';"],
    ['apps/gateway/src/x.ts', "import { createNodeContext } from '@swarm/domain';"],
    ['apps/web/src/lib/x.ts', "import { appRouter } from '@swarm/api';"],
    ['packages/testnet/src/x.ts', "import { authServicesOf } from '@swarm/auth';"],
    ['packages/api/test/x.test.ts', "import { createTestNode } from '@swarm/testnet';"],
    ['apps/gateway/test/x.test.ts', "import { createGatewayApp } from '../src/index.ts';"],
    ['packages/testnet/test/x.test.ts', "import { createGatewayApp } from '@swarm/gateway';"],
  ])('%s: %s is allowed', async (file, code) => {
    expect(await refusals(file, code)).toEqual([]);
  });
});

describe('the contract runs in the browser too (eslint.config.js)', () => {
  const contractRefusals = async (filePath: string, code: string) => {
    const [result] = await eslint.lintText(code, { filePath });
    return result!.messages
      .filter((m) => m.ruleId === 'no-restricted-syntax' || m.ruleId === 'no-restricted-globals')
      .map((m) => m.message);
  };

  it.each([
    "import { readFileSync } from 'node:fs';\nexport const x = readFileSync;",
    "export const load = () => import('node:crypto');",
    'export const home = process.env.HOME;',
    "export const bytes = Buffer.from('x');",
    "export const get = () => fetch('https://example.org');",
    "export const saved = localStorage.getItem('k');",
  ])('refuses %s in its source', async (code) => {
    expect(await contractRefusals('packages/contract/src/x.ts', code)).toHaveLength(1);
  });

  it('leaves WebCrypto, and its tests, alone', async () => {
    expect(
      await contractRefusals(
        'packages/contract/src/x.ts',
        'export const s = globalThis.crypto.subtle;',
      ),
    ).toEqual([]);
    expect(
      await contractRefusals(
        'packages/contract/src/x.test.ts',
        "import { readFileSync } from 'node:fs';",
      ),
    ).toEqual([]);
  });
});
