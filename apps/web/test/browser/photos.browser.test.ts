import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { freePort, nodeOnPort, phoneJpeg, smallPng, type RestartableNode } from '@swarm/testnet';
import { launchBrowser, type BrowserHarness, type Person } from './browser-harness.ts';

// Issue #14 "Photos" in Chromium through the real process (one embedded node): a photo attached
// in the composer from the file picker, another pasted and a third dropped (and removed), each
// described (the composer nudges
// while a description is missing), posted and shown; an image by URL whose host is gone shows
// its alt text, not a broken icon; an avatar set in the settings. Needs `pnpm build`.

const PASSWORD = 'correct horse battery staple';

describe('photos in a browser', () => {
  let dataDir: string;
  let node: RestartableNode;
  let harness: BrowserHarness;
  let pat: Person;
  /** A port nothing listens on: an image "on a node that is gone". */
  let gonePort: number;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'swarm-browser-photos-'));
    gonePort = await freePort();
    node = nodeOnPort({ dataDir, port: await freePort() });
    harness = await launchBrowser('photos');
    await node.start();
    pat = await harness.person('pat');
  }, 300_000);

  afterAll(async () => {
    await harness?.close();
    await node?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  beforeEach(({ onTestFailed }) => {
    onTestFailed(async () => {
      await pat?.shot('failed').catch(() => undefined);
      console.error(`--- node output ---\n${node.output()}`);
    });
  });

  afterEach(() => {
    // The image of the gone host fails to load, as it should: that one error is expected.
    const errors = harness
      .errors()
      .filter((e) => !/Failed to load resource: the server responded with a status of 502/.test(e));
    pat.errors.length = 0;
    expect(errors, 'console or page errors in the browser').toEqual([]);
  });

  it('attaches photos with alt text, posts them, and shows them', async () => {
    const { page } = pat;
    await pat.visit(node.url, '/signup');
    await page.getByLabel('Handle', { exact: true }).fill('pat');
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('button', { name: 'Log out' }).waitFor();
    await pat.visit(node.url, '/');

    // From the file picker.
    await page.getByLabel('Add photos').setInputFiles({
      name: 'IMG_0001.jpg',
      mimeType: 'image/jpeg',
      buffer: Buffer.from(await phoneJpeg({ width: 600, height: 400 })),
    });
    const firstAlt = page.getByLabel('Describe this photo for people who cannot see it').first();
    await firstAlt.waitFor();
    await expect.poll(() => firstAlt.isEnabled(), { timeout: 30_000 }).toBe(true);
    // The nudge while the description is empty, gone once there is one.
    await page.getByText('No description yet').first().waitFor();
    await firstAlt.fill('A gradient from red to green');

    // Pasted into the text.
    const png = Buffer.from(await smallPng(80, 60)).toString('base64');
    await page.getByLabel('Write a post').fill('Two photos from my phone');
    await page.getByLabel('Write a post').evaluate((textarea, base64) => {
      const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
      const data = new DataTransfer();
      data.items.add(new File([bytes], 'pasted.png', { type: 'image/png' }));
      textarea.dispatchEvent(
        new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }),
      );
    }, png);
    const secondAlt = page.getByLabel('Describe this photo for people who cannot see it').nth(1);
    await expect.poll(() => secondAlt.isEnabled(), { timeout: 30_000 }).toBe(true);
    await expect.poll(() => page.getByText('A photo has no description.').count()).toBe(1);
    await secondAlt.fill('A blue rectangle');

    // Dropped on the composer, then taken out again.
    await page.locator('form.composer').evaluate((form, base64) => {
      const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
      const data = new DataTransfer();
      data.items.add(new File([bytes], 'dropped.png', { type: 'image/png' }));
      for (const type of ['dragover', 'drop']) {
        form.dispatchEvent(
          new DragEvent(type, { dataTransfer: data, bubbles: true, cancelable: true }),
        );
      }
    }, png);
    const thirdAlt = page.getByLabel('Describe this photo for people who cannot see it').nth(2);
    await expect.poll(() => thirdAlt.isEnabled(), { timeout: 30_000 }).toBe(true);
    await page.getByRole('button', { name: 'Remove photo' }).nth(2).click();
    await expect
      .poll(() => page.getByLabel('Describe this photo for people who cannot see it').count())
      .toBe(2);
    await expect.poll(() => page.getByText('No description yet').count()).toBe(0);
    await pat.shot('composer-with-photos');

    await page.getByRole('button', { name: 'Post', exact: true }).click();
    const card = page.getByRole('article').filter({ hasText: 'Two photos from my phone' });
    await card.waitFor();
    const first = card.getByRole('img', { name: 'A gradient from red to green' });
    const second = card.getByRole('img', { name: 'A blue rectangle' });
    for (const image of [first, second]) {
      await expect
        .poll(() => image.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth))
        .toBeGreaterThan(0);
      expect(await image.getAttribute('src')).toMatch(/^\/media\/uploads\/[0-9a-f-]{36}\.webp$/);
      expect(await image.getAttribute('loading')).toBe('lazy');
    }
    // Upright: 600 × 400 with orientation 6 is stored 400 × 600.
    expect(await first.evaluate((img: HTMLImageElement) => img.naturalHeight)).toBe(600);
    // The composer is empty again.
    expect(await page.getByLabel('Describe this photo for people who cannot see it').count()).toBe(
      0,
    );
    await pat.shot('posted');
  });

  it('shows the alt text of an image that cannot be loaded', async () => {
    const { page } = pat;
    await pat.visit(node.url, '/');
    await page.getByText('Images by URL and content warning').click();
    await page.getByLabel('Image URL').first().fill(`http://localhost:${gonePort}/gone.png`);
    await page
      .getByLabel('Description for people who cannot see it (alt text)')
      .first()
      .fill('A photo on a node that is gone');
    await page.getByLabel('Write a post').fill('This image will not load');
    await page.getByRole('button', { name: 'Post', exact: true }).click();
    const card = page.getByRole('article').filter({ hasText: 'This image will not load' });
    await card.getByText('(the image could not be loaded)').waitFor({ timeout: 30_000 });
    await card.getByText('A photo on a node that is gone').waitFor();
    expect(await card.getByRole('img', { name: 'A photo on a node that is gone' }).count()).toBe(0);
    await pat.shot('broken-image');
  });

  it('sets an avatar in the settings', async () => {
    const { page } = pat;
    await pat.visit(node.url, '/settings');
    await page.getByLabel('Upload a new avatar').setInputFiles({
      name: 'me.png',
      mimeType: 'image/png',
      buffer: Buffer.from(await smallPng(640, 480)),
    });
    await page.getByText('Avatar updated.').waitFor({ timeout: 30_000 });
    const avatar = page.getByRole('img', { name: 'Your current avatar' });
    await expect
      .poll(() => avatar.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth))
      .toBe(400);
    expect(await page.getByLabel('Avatar URL').inputValue()).toMatch(
      new RegExp(`^${node.url}/media/uploads/[0-9a-f-]{36}\\.webp$`),
    );
    await pat.shot('avatar');
  });
});
