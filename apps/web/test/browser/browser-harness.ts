import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTestDb } from '@swarm/db/testing';
import {
  chromium,
  type Browser,
  type BrowserContext,
  type Locator,
  type Page,
  type Request,
} from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, expect } from 'vitest';
import { freePort, nodeOnPort, type RestartableNode } from '@swarm/testnet';

// The browser side of the web app's end-to-end tests: Debian's Chromium driven by
// playwright-core (installed by .ci/run), one browser context per person so cookies and
// IndexedDB (the user's signing key) stay apart, console and page errors collected so a test can
// fail on any, and a screenshot of every page visited under test-results/ (CI keeps that folder).

const repoRoot = fileURLToPath(new URL('../../../../', import.meta.url));
export const screenshotsRoot = join(repoRoot, 'test-results', 'screenshots');

/** Waits in the browser are bounded; a step that takes longer than this is a failure. */
export const STEP_TIMEOUT_MS = 15_000;

export interface Person {
  name: string;
  context: BrowserContext;
  page: Page;
  /** Console errors and uncaught page errors seen so far. */
  errors: string[];
  /** Opens `path` on `baseUrl` (or an absolute URL), waits for it to load, takes a screenshot. */
  visit(baseUrl: string, path: string, label?: string): Promise<void>;
  /**
   * Opens `path` again and again until `shown()` is on the page: for what reaches a page through
   * a peer read, which a node caches for a short while (PEER_READ_DEFAULTS.cacheTtlMs, 15 s).
   */
  visitUntil(
    baseUrl: string,
    path: string,
    shown: () => Locator,
    timeoutMs?: number,
  ): Promise<void>;
  /** A screenshot of the page as it is now. */
  shot(label: string): Promise<void>;
}

/** The requests each person's page has under way (the live-update stream left out). */
const underWay = new WeakMap<Page, Set<Request>>();

function trackRequests(page: Page): void {
  const pending = new Set<Request>();
  underWay.set(page, pending);
  page.on('request', (r) => {
    if (r.resourceType() !== 'eventsource') pending.add(r);
  });
  page.on('requestfinished', (r) => pending.delete(r));
  page.on('requestfailed', (r) => pending.delete(r));
}

/**
 * Waits until the page's script has run (the root layout marks `<html data-ready>`), then until
 * the requests the page made on its own have ended. Counting them ends as soon as they have:
 * Playwright's `networkidle` waited for half a second without any (~0.45 s on every visit).
 * Signed in, a page opens its live-update stream a while after loading and keeps it open; that
 * one is not counted, and the wait stays bounded.
 */
export async function hydrated(page: Page): Promise<void> {
  await page.waitForSelector('html[data-ready]', { state: 'attached' });
  const pending = underWay.get(page);
  if (!pending) {
    await page.waitForLoadState('networkidle', { timeout: 2_500 }).catch(() => undefined);
    return;
  }
  const deadline = Date.now() + 2_500;
  // A request may start from the answer to another: done when none is under way at two
  // animation frames in a row (a page that navigates away meanwhile is waited for too).
  for (let quiet = 0; quiet < 2 && Date.now() < deadline;) {
    await page
      .evaluate(() => new Promise((done) => requestAnimationFrame(done)))
      .catch(() => page.waitForLoadState('load'));
    quiet = pending.size === 0 ? quiet + 1 : 0;
    if (pending.size > 0) {
      await page.waitForEvent('requestfinished', { timeout: 250 }).catch(() => undefined);
    }
  }
}

export interface BrowserHarness {
  browser: Browser;
  person(name: string): Promise<Person>;
  /** Every error seen by every person, prefixed with their name. */
  errors(): string[];
  /** Like `errors()`, and forgets them: what the next call returns is new. */
  takeErrors(): string[];
  /** A screenshot of every person's page as it is now (failures to take one are ignored). */
  shotAll(label: string): Promise<void>;
  close(): Promise<void>;
}

export async function launchBrowser(suite: string): Promise<BrowserHarness> {
  const dir = join(screenshotsRoot, suite);
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
  const people: Person[] = [];
  let shots = 0;

  async function person(name: string): Promise<Person> {
    const context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
    context.setDefaultTimeout(STEP_TIMEOUT_MS);
    context.setDefaultNavigationTimeout(STEP_TIMEOUT_MS);
    const page = await context.newPage();
    trackRequests(page);
    const errors: string[] = [];
    page.on('console', (msg) => {
      if (msg.type() === 'error') {
        errors.push(`console: ${msg.text()} (${msg.location().url || page.url()})`);
      }
    });
    page.on('pageerror', (err) => errors.push(`page error: ${err.message} (${page.url()})`));
    const shot = async (label: string) => {
      shots += 1;
      const file = `${String(shots).padStart(2, '0')}-${name}-${label.replace(/[^a-z0-9]+/gi, '-')}.png`;
      await page.screenshot({ path: join(dir, file), fullPage: true });
    };
    const visit = async (baseUrl: string, path: string, label?: string) => {
      // SvelteKit hydrates after `load` (it imports the page's modules then); a click before
      // that would submit a form without the page's script (no key made, nothing signed).
      const response = await page.goto(new URL(path, baseUrl).href, { waitUntil: 'load' });
      if (!response || response.status() >= 400) {
        throw new Error(`${name}: GET ${path} answered ${String(response?.status())}`);
      }
      await hydrated(page);
      await shot(label ?? (path === '/' ? 'home' : path));
    };
    const visitUntil = async (
      baseUrl: string,
      path: string,
      shown: () => Locator,
      timeoutMs = 45_000,
    ) => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        await visit(baseUrl, path);
        if ((await shown().count()) > 0) return;
        if (Date.now() > deadline) {
          throw new Error(`${name}: ${path} did not show what was awaited in ${timeoutMs} ms`);
        }
        await page.waitForTimeout(1_000);
      }
    };
    const p: Person = { name, context, page, errors, visit, visitUntil, shot };
    people.push(p);
    return p;
  }

  const errors = () => people.flatMap((p) => p.errors.map((e) => `${p.name}: ${e}`));
  return {
    browser,
    person,
    errors,
    takeErrors: () => {
      const seen = errors();
      for (const p of people) p.errors.length = 0;
      return seen;
    },
    shotAll: async (label) => {
      await Promise.all(people.map((p) => p.shot(label).catch(() => undefined)));
    },
    close: async () => {
      await browser.close();
    },
  };
}

/** Two embedded nodes on free ports (B names A as its seed) and a browser to drive them. */
export interface TwoNodes {
  a: RestartableNode;
  b: RestartableNode;
  harness: BrowserHarness;
  /** Closes the browser, stops the nodes and removes their data. */
  close(): Promise<void>;
}

/**
 * Starts A and B (each its own PGlite directory, gossip every 2 s) and a browser for `suite`.
 * Both nodes start even if one fails; on failure everything started is stopped again.
 */
export async function startTwoNodes(
  suite: string,
  options: { postgres?: boolean; env?: Record<string, string> } = {},
): Promise<TwoNodes> {
  const dataDir = await mkdtemp(join(tmpdir(), `swarm-browser-${suite}-`));
  const [portA, portB] = [await freePort(), await freePort()];
  // `postgres` (with TEST_DATABASE_URL): each node on a fresh Postgres database instead of
  // PGlite, which boots far faster on a loaded machine.
  const dbs =
    options.postgres && process.env.TEST_DATABASE_URL
      ? [await createTestDb(), await createTestDb()]
      : [];
  const urlOf = (i: number): Record<string, string> => {
    const db = dbs[i];
    const url = db?.kind === 'postgres' ? db.pool.options.connectionString : undefined;
    return url ? { DATABASE_URL: url } : {};
  };
  const common = { SWARM_GOSSIP_INTERVAL_MS: '2000', ...options.env };
  const a = nodeOnPort({
    dataDir: join(dataDir, 'a'),
    port: portA,
    env: { ...common, ...urlOf(0), SWARM_NODE_NAME: 'Node A' },
  });
  const b = nodeOnPort({
    dataDir: join(dataDir, 'b'),
    port: portB,
    env: { ...common, ...urlOf(1), SWARM_NODE_NAME: 'Node B', SWARM_SEEDS: a.domain },
  });
  let harness: BrowserHarness | undefined;
  const close = async () => {
    await harness?.close();
    await Promise.all([a.stop(), b.stop()]);
    await Promise.all(dbs.map((db) => db.close()));
    await rm(dataDir, { recursive: true, force: true });
  };
  try {
    // Chromium starts while the nodes do (it is ready long before them).
    const browser = launchBrowser(suite).then((h) => (harness = h));
    const started = await Promise.allSettled([a.start(), b.start(), browser]);
    for (const s of started) if (s.status === 'rejected') throw s.reason;
    harness = await browser;
    return { a, b, harness, close };
  } catch (error) {
    await close().catch(() => undefined);
    throw error;
  }
}

/** What a suite on two nodes works with, once they and the browser are up. */
export interface TwoNodeSuite<Name extends string> extends Omit<TwoNodes, 'close'> {
  /** One person per name of the suite's `people`. */
  people: Record<Name, Person>;
}

/**
 * Registers the hooks of a browser suite on two nodes in the calling `describe`: before all, the
 * nodes and browser of `startTwoNodes(suite, nodes)` and one person per name (made by `person`,
 * by default a plain `harness.person`), handed to `ready`; after all, everything stopped. When a
 * step fails: a screenshot of every person and both nodes' output. After every step: the console
 * and page errors seen in it fail the step (`pageErrors: 'ignore'` only forgets them).
 */
export function twoNodeSuite<const Name extends string>(
  suite: string,
  options: {
    people: readonly Name[];
    nodes?: Parameters<typeof startTwoNodes>[1];
    person?: (harness: BrowserHarness, name: Name) => Promise<Person>;
    /** Of the start-up (default: the configured hook timeout). */
    timeoutMs?: number;
    pageErrors?: 'fail' | 'ignore';
  },
  ready: (started: TwoNodeSuite<Name>) => void,
): void {
  let nodes: TwoNodes | undefined;
  let starting: Promise<TwoNodes> | undefined;
  beforeAll(async () => {
    starting = startTwoNodes(suite, options.nodes);
    nodes = await starting;
    const { a, b, harness } = nodes;
    const people = {} as Record<Name, Person>;
    for (const name of options.people) {
      people[name] = await (options.person?.(harness, name) ?? harness.person(name));
    }
    ready({ a, b, harness, people });
  }, options.timeoutMs);

  // A start-up that outlived its hook's timeout still owns two node processes: wait for it (a
  // node process that is not up within 240 s is killed, so it ends) and stop what it started.
  afterAll(async () => {
    const started = nodes ?? (await starting?.catch(() => undefined));
    await started?.close();
  }, 300_000);

  beforeEach(({ onTestFailed }) => {
    onTestFailed(async () => {
      if (!nodes) return;
      // What each person was looking at, and what the nodes said, when the step failed.
      await nodes.harness.shotAll('failed');
      const { a, b } = nodes;
      console.error(`--- node A output ---\n${a.output()}\n--- node B output ---\n${b.output()}`);
    });
  });

  afterEach(() => {
    const errors = nodes?.harness.takeErrors() ?? [];
    if (options.pageErrors !== 'ignore') {
      expect(errors, 'console or page errors in the browser').toEqual([]);
    }
  });
}

/**
 * The pages alice sees signed in as her node's admin, bob on `peer` being the remote person of
 * the suite: `postPath` is the page of one of her posts.
 */
export function adminPages(peer: RestartableNode, postPath: string): string[] {
  return [
    '/',
    '/public',
    '/swarm',
    '/find',
    '/@alice',
    `/@bob@${peer.domain}`,
    postPath,
    '/notifications',
    '/bookmarks',
    '/lists',
    '/deliveries',
    '/settings',
    '/messages',
    `/messages/bob@${peer.domain}`,
    '/admin',
    '/admin/actions',
    `/admin/nodes/${encodeURIComponent(peer.domain)}`,
    '/admin/outbox',
    '/admin/seeds',
    '/admin/tokens',
    '/admin/users',
  ];
}

/** The password every person of the browser tests signs up with. */
export const PASSWORD = 'correct horse battery staple';

/**
 * Signs `p` up on `node` as `p.name` through the sign-up page. Key generation and the
 * password-derived backup run in the browser before the account exists: done at "Log out".
 */
export async function signUp(p: Person, node: RestartableNode, displayName: string) {
  await p.visit(node.url, '/signup');
  await p.page.getByLabel('Handle', { exact: true }).fill(p.name);
  await p.page.getByLabel('Display name', { exact: true }).fill(displayName);
  await p.page.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await p.page.getByRole('button', { name: 'Create account' }).click();
  await p.page.getByRole('button', { name: 'Log out' }).waitFor();
  await p.shot('signed-up');
}
