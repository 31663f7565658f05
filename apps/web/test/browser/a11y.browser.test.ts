import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import type { RestartableNode } from '@swarm/testnet';
import { adminPages, PASSWORD, signUp, twoNodeSuite, type Person } from './browser-harness.ts';

// Issue #14: every page passes axe-core with no serious or critical violation, anonymous,
// signed in and as the node's admin (the first account on a node is its admin), on a wide
// screen in light mode and on a 390-px phone in dark mode. axe-core (npm) is evaluated in each
// page through the DevTools protocol (the pages' CSP allows no injected script tag). Needs
// `pnpm build`.

const axeSource = readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown[]; failureSummary?: string }[];
}

describe('every page passes axe-core', () => {
  let a: RestartableNode;
  let b: RestartableNode;
  let visitor: Person;
  let alice: Person;
  let bob: Person;
  let alicePostPath = '';

  // axe's findings are what this suite checks; the other suites fail on console errors.
  twoNodeSuite(
    'a11y',
    {
      people: ['visitor', 'alice', 'bob'],
      nodes: { postgres: true },
      timeoutMs: 400_000,
      pageErrors: 'ignore',
    },
    (started) => {
      ({
        a,
        b,
        people: { visitor, alice, bob },
      } = started);
    },
  );

  /** Serious and critical violations of every path, as `path: rule (impact) at target`. */
  async function audit(p: Person, node: RestartableNode, paths: string[]): Promise<string[]> {
    const source = await axeSource;
    const found: string[] = [];
    // Wide in light mode, the phone layout in dark mode: both layouts, both palettes.
    const passes = [
      { width: 1100, scheme: 'light' },
      { width: 390, scheme: 'dark' },
    ] as const;
    for (const { width, scheme } of passes) {
      await p.page.setViewportSize({ width, height: 900 });
      {
        await p.page.emulateMedia({ colorScheme: scheme });
        for (const path of paths) {
          await p.visit(node.url, path, `${path}-${width}-${scheme}`);
          await p.page.evaluate(source);
          const violations = (await p.page.evaluate(async () => {
            const axe = (window as unknown as { axe: { run: (o: unknown) => Promise<unknown> } })
              .axe;
            const result = (await axe.run({ resultTypes: ['violations'] })) as {
              violations: AxeViolation[];
            };
            return result.violations;
          })) as AxeViolation[];
          for (const v of violations) {
            if (v.impact !== 'serious' && v.impact !== 'critical') continue;
            for (const n of v.nodes) {
              found.push(
                `${path} (${width}px, ${scheme}): ${v.id} (${v.impact}) ${v.help} at ${JSON.stringify(n.target)}`,
              );
            }
          }
        }
      }
    }
    await p.page.setViewportSize({ width: 1100, height: 900 });
    await p.page.emulateMedia({ colorScheme: 'light' });
    return [...new Set(found)];
  }

  it('signs up the admin (alice, first on A) and bob on B, with a post each', async () => {
    await signUp(alice, a, 'Alice');
    await signUp(bob, b, 'Bob');
    await alice.visit(a.url, '/');
    await alice.page.getByLabel('Write a post', { exact: true }).fill('Alice checks #a11y');
    await alice.page.getByRole('button', { name: 'Post', exact: true }).click();
    const href = await alice.page
      .getByRole('article')
      .filter({ hasText: 'Alice checks' })
      .getByRole('link', { name: 'Reply' })
      .getAttribute('href');
    alicePostPath = (href ?? '').replace(/#.*$/, '');
    expect(alicePostPath).toMatch(/^\/posts\//);
  }, 300_000);

  it('a refused sign-up shows the refusal at its field (HANDLE_TAKEN → Handle), tied to the input', async () => {
    await visitor.visit(a.url, '/signup');
    await visitor.page.getByLabel('Handle', { exact: true }).fill('alice');
    await visitor.page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await visitor.page.getByRole('button', { name: 'Create account' }).click();
    const handle = visitor.page.getByLabel('Handle', { exact: true });
    await expect.poll(() => handle.getAttribute('aria-invalid'), { timeout: 30_000 }).toBe('true');
    // The message is the field's own (read with it by aria-describedby), not the form's.
    const described = (await handle.getAttribute('aria-describedby')) ?? '';
    const errorId = described.split(' ').find((id) => id.endsWith('-error'));
    expect(errorId).toBeDefined();
    expect((await visitor.page.locator(`[id="${errorId}"]`).textContent())?.trim()).not.toBe('');
    await expect(visitor.page.locator('.form-error').count()).resolves.toBe(0);
    expect(
      await visitor.page.getByLabel('Password', { exact: true }).getAttribute('aria-invalid'),
    ).toBeNull();
  }, 120_000);

  it('anonymous pages', async () => {
    const found = await audit(visitor, a, [
      '/',
      '/public',
      '/swarm',
      '/login',
      '/signup',
      '/find',
      '/@alice',
      alicePostPath,
    ]);
    expect(found).toEqual([]);
  }, 600_000);

  it('signed-in and admin pages', async () => {
    const found = await audit(alice, a, adminPages(b, alicePostPath));
    expect(found).toEqual([]);
  }, 900_000);
});
