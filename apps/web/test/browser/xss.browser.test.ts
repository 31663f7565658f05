import { describe, expect, it, vi } from 'vitest';
import { freePort, type RestartableNode } from '@swarm/testnet';
import { signUp, twoNodeSuite, type BrowserHarness, type Person } from './browser-harness.ts';

// Red team (issue 22): script planted where people type text that pages show: a display name,
// a bio, a website, a post, an image's alt text, a link preview's fields (mallory on node B,
// through the node's own front door). Her profile and post are then opened in Chromium on her
// node and, as a remote person, on node A. Nothing may run: no `window.__xss`, no dialog, no
// element with an inline handler, no `javascript:` link, and no page error (a blocked inline
// handler would be one). Each payload must be on the page as text. Needs `pnpm build`.

// Two node processes and Chromium on a shared machine: steps and start-up get time.
vi.setConfig({ testTimeout: 180_000 });

const hook = (n: number) => `<img src=x onerror="window.__xss=${n};alert(${n})">`;
const NAME = hook(1).slice(0, 64);
const BIO = `<script>window.__xss=2</script>${hook(3)}`;
const POST = `<script>window.__xss=4</script> ${hook(5)} <a href="javascript:window.__xss=6">x</a>`;
const ALT = `${hook(7)}"><svg onload="window.__xss=8">`;
const TITLE = `<img src=x onerror=window.__xss=9>`;
const DESCRIPTION = `</p><script>window.__xss=10</script>`;

describe('script in what people type is shown as text', () => {
  let a: RestartableNode;
  let b: RestartableNode;
  let harness: BrowserHarness;
  let alice: Person;
  let mallory: Person;
  let postPath: string;
  const dialogs: string[] = [];

  twoNodeSuite(
    'xss',
    // Images of a host that is gone answer 502 through the proxy: checked below, not here.
    { people: ['alice', 'mallory'], pageErrors: 'ignore', timeoutMs: 400_000 },
    (started) => {
      ({
        a,
        b,
        harness,
        people: { alice, mallory },
      } = started);
      for (const p of [alice, mallory]) {
        p.page.on('dialog', (dialog) => {
          dialogs.push(dialog.message());
          void dialog.dismiss();
        });
      }
    },
  );

  /** tRPC from the page itself (same origin, the person's session). */
  async function trpc(p: Person, path: string, input: unknown) {
    return p.page.evaluate(
      async ({ path, input }) => {
        const response = await fetch(`/trpc/${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(input),
        });
        return { status: response.status, body: (await response.json()) as unknown };
      },
      { path, input },
    );
  }

  /** Nothing ran on the page `p` shows, and `texts` are on it as text. */
  async function inert(p: Person, texts: string[]) {
    const state = await p.page.evaluate(() => ({
      xss: (window as unknown as { __xss?: number }).__xss ?? null,
      handlers: document.querySelectorAll('[onerror],[onload],[onclick],[onmouseover]').length,
      scripts: [...document.querySelectorAll('script')].filter((s) => !s.nonce && !s.src).length,
      javascriptLinks: [...document.querySelectorAll('a[href]')]
        .map((el) => el.getAttribute('href') ?? '')
        .filter((href) => /^\s*javascript:/i.test(href)),
    }));
    expect(state).toEqual({ xss: null, handlers: 0, scripts: 0, javascriptLinks: [] });
    for (const text of texts) {
      expect(await p.page.getByText(text, { exact: false }).count(), text).toBeGreaterThan(0);
    }
    expect(dialogs).toEqual([]);
    const errors = harness
      .errors()
      .filter((e) => !/Failed to load resource: the server responded with a status of 502/.test(e));
    expect(errors, 'console or page errors in the browser').toEqual([]);
  }

  it('mallory plants script in her name, bio, website, a post, alt text and a link card', async () => {
    await signUp(mallory, b, NAME);
    const settings = {
      displayName: NAME,
      bio: BIO,
      avatarUrl: null,
      headerUrl: null,
      isNsfw: false,
      showNsfw: false,
    };
    // A `javascript:` website is refused outright; a quote-breaking one is kept as a URL.
    const refused = await trpc(mallory, 'settings.update', {
      ...settings,
      website: 'javascript:window.__xss=11',
    });
    expect(refused.status).toBe(400);
    const saved = await trpc(mallory, 'settings.update', {
      ...settings,
      website: 'https://example.com/"><img src=x onerror=window.__xss=12>',
    });
    expect(saved.status).toBe(200);

    const gone = `http://localhost:${await freePort()}/gone.png`;
    const created = await trpc(mallory, 'posts.create', {
      content: POST,
      media: [{ url: gone, altText: ALT }],
      linkPreview: {
        url: 'https://example.com/"><img src=x onerror=window.__xss=13>',
        title: TITLE,
        description: DESCRIPTION,
        image: 'https://example.com/x.png"onerror="window.__xss=14',
      },
    });
    expect(created.status).toBe(200);
    const { post } = (created.body as { result: { data: { post: { path: string } } } }).result.data;
    postPath = post.path;
  });

  it('her node shows it all as text: her profile and her post', async () => {
    await mallory.visit(b.url, '/@mallory');
    await inert(mallory, [NAME, '<script>window.__xss=2</script>']);
    await mallory.visit(b.url, postPath);
    await inert(mallory, ['<script>window.__xss=4</script>', TITLE, DESCRIPTION]);
  });

  it('the other node shows her, a remote person, as text too', async () => {
    await signUp(alice, a, 'Alice');
    const profile = `/@mallory@${b.domain}`;
    await alice.visitUntil(a.url, profile, () => alice.page.getByText(NAME).first());
    await inert(alice, [
      NAME,
      '<script>window.__xss=2</script>',
      '<script>window.__xss=4</script>',
    ]);
    const remotePost = `/posts/swarm:${b.domain}:${postPath.split('/').at(-1)}`;
    await alice.visitUntil(a.url, remotePost, () =>
      alice.page.getByText('<script>window.__xss=4</script>', { exact: false }).first(),
    );
    await inert(alice, ['<script>window.__xss=4</script>']);
  });
});
