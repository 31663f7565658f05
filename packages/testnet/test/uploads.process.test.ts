import { readdir, readFile, mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '@swarm/db';
import { createTestDb } from '@swarm/db/testing';
import {
  exifHasGps,
  PDF_BYTES,
  phoneJpeg,
  pngClaiming,
  smallPng,
  SVG_BYTES,
} from '../src/image-fixtures.ts';
import {
  freePort,
  startNodeProcess,
  withMigratedDataDir,
  type NodeProcess,
} from '../src/node-process.ts';
import { S3RVER_CREDENTIALS, startS3Server, type TestS3Server } from '../src/s3-server.ts';

// Photo uploads (issue #14 "Photos") through the front door of real processes: `POST
// /api/uploads` on the embedded node for every bad input and the good path, the files it
// serves, a post carrying the absolute URL, a peer node fetching that URL through its media
// proxy, and the peer storing its own uploads in S3 (s3rver). Needs `pnpm build`.

const ADMIN_TOKEN = 'uploads-process-admin-token-0123456789';
const PASSWORD = 'correct horse battery staple';
const START_MS = 240_000;

interface Node {
  process: NodeProcess;
  base: string;
  dataDir: string;
  cookie: string;
}

async function startNode(env: Record<string, string>, db?: Db): Promise<Omit<Node, 'cookie'>> {
  const dataDir = await mkdtemp(join(tmpdir(), 'swarm-uploads-'));
  const port = await freePort();
  const databaseUrl = db?.kind === 'postgres' ? db.pool.options.connectionString : undefined;
  const process = await startNodeProcess(
    await withMigratedDataDir({
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
      PORT: String(port),
      SWARM_DOMAIN: `localhost:${port}`,
      SWARM_DEV: '1',
      DATA_DIR: dataDir,
      ADMIN_TOKEN,
      ...env,
    }),
  );
  return { process, base: `http://localhost:${port}`, dataDir };
}

async function signUp(base: string, handle: string, admin = false): Promise<string> {
  const created = await fetch(`${base}/api/swarm/admin/users`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ handle, password: PASSWORD, admin }),
  });
  expect(created.status, await created.clone().text()).toBe(201);
  const res = await fetch(`${base}/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: {
      origin: base,
      accept: 'text/html',
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams({ handle, password: PASSWORD }).toString(),
  });
  expect(res.status).toBe(303);
  return res.headers
    .getSetCookie()
    .find((c) => c.startsWith('swarm_session='))!
    .split(';', 1)[0]!;
}

/** `type` null: no Content-Type header at all. */
function upload(node: Node, body: Uint8Array, type: string | null, purpose = 'post') {
  return fetch(`${node.base}/api/uploads?purpose=${purpose}`, {
    method: 'POST',
    headers: {
      cookie: node.cookie,
      origin: node.base,
      ...(type === null ? {} : { 'content-type': type }),
    },
    body: body as Uint8Array<ArrayBuffer>,
  });
}

async function trpc(node: Node, procedure: string, input: unknown) {
  const res = await fetch(`${node.base}/trpc/${procedure}`, {
    method: 'POST',
    headers: { cookie: node.cookie, origin: node.base, 'content-type': 'application/json' },
    body: JSON.stringify(input),
  });
  const body = (await res.json()) as { result?: { data: unknown }; error?: unknown };
  expect(res.status, JSON.stringify(body)).toBe(200);
  return body.result!.data;
}

/** Files in the node's upload folder (the disk storage of embedded mode). */
async function storedFiles(node: Node): Promise<string[]> {
  try {
    return (await readdir(join(node.dataDir, 'uploads'))).sort();
  } catch {
    return [];
  }
}

/**
 * Sends a body of `total` bytes in 64 KB pieces over a plain socket, declared (Content-Length)
 * or chunked, and stops sending as soon as the answer begins (a refusing server closes the
 * connection, which an HTTP client would report as EPIPE instead of the answer): resolves with
 * the status, the answer's body and how much was sent by then.
 */
function sendLarge(node: Node, total: number, declared: boolean) {
  const url = new URL(`${node.base}/api/uploads?purpose=post`);
  return new Promise<{ status: number; body: string; sent: number }>((resolve, reject) => {
    let sent = 0;
    let received = Buffer.alloc(0);
    const socket = connect(Number(url.port), '127.0.0.1');
    socket.on('error', () => {}); // EPIPE / ECONNRESET once the server has answered and closed
    let done = false;
    /** The answer, once its head and whole body are in (or the connection ended). */
    const answer = (ended: boolean) => {
      const text = received.toString('latin1');
      const split = text.indexOf('\r\n\r\n');
      if (split < 0) return ended ? reject(new Error(`no answer after ${sent} bytes`)) : undefined;
      const head = text.slice(0, split);
      let body = text.slice(split + 4);
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]);
      const length = /content-length: (\d+)/i.exec(head)?.[1];
      if (length !== undefined) {
        if (body.length < Number(length)) return ended ? reject(new Error('cut short')) : undefined;
        body = body.slice(0, Number(length));
      } else if (/transfer-encoding: chunked/i.test(head)) {
        if (!body.includes('\r\n0\r\n\r\n') && !body.startsWith('0\r\n')) {
          return ended ? reject(new Error('cut short')) : undefined;
        }
        let decoded = '';
        for (let at = 0; ;) {
          const eol = body.indexOf('\r\n', at);
          const size = parseInt(body.slice(at, eol), 16);
          if (!size) break;
          decoded += body.slice(eol + 2, eol + 2 + size);
          at = eol + 2 + size + 2;
        }
        body = decoded;
      }
      done = true;
      socket.destroy();
      resolve({ status, body, sent });
    };
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      if (!done) answer(false);
    });
    socket.on('close', () => {
      if (!done) answer(true);
    });
    socket.write(
      [
        `POST ${url.pathname}${url.search} HTTP/1.1`,
        `host: ${url.host}`,
        `cookie: ${node.cookie}`,
        `origin: ${node.base}`,
        'content-type: image/jpeg',
        declared ? `content-length: ${total}` : 'transfer-encoding: chunked',
        '',
        '',
      ].join('\r\n'),
    );
    const piece = Buffer.alloc(64 * 1024, 0xff);
    const framed = declared
      ? piece
      : Buffer.concat([
          Buffer.from(`${piece.length.toString(16)}\r\n`),
          piece,
          Buffer.from('\r\n'),
        ]);
    const pump = () => {
      while (received.length === 0 && sent < total && !socket.destroyed) {
        sent += piece.length;
        if (!socket.write(framed)) {
          socket.once('drain', pump);
          return;
        }
      }
      if (received.length === 0 && !socket.destroyed && !declared) socket.write('0\r\n\r\n');
    };
    pump();
    // The answer is complete once the server closes; never wait forever.
    setTimeout(() => socket.destroy(), 60_000).unref();
  });
}

describe('photo uploads on running nodes', () => {
  let db: Db | undefined;
  let s3: TestS3Server;
  let alpha: Node;
  let beta: Node;

  beforeAll(async () => {
    db = process.env.TEST_DATABASE_URL ? await createTestDb() : undefined;
    s3 = await startS3Server();
    // alpha: the embedded node as `pnpm start` runs it (files under DATA_DIR); beta: a peer
    // whose media go to object storage. beta's database is always its own PGlite.
    const [a, b] = await Promise.all([
      startNode({}, db),
      startNode({ ...s3.env, S3_PREFIX: 'beta/' }),
    ]);
    alpha = { ...a, cookie: await signUp(a.base, 'alice') };
    beta = { ...b, cookie: await signUp(b.base, 'bob') };
  }, START_MS * 2);

  afterAll(async () => {
    await Promise.all([alpha?.process.stop(), beta?.process.stop()]);
    await s3?.close();
    for (const node of [alpha, beta]) {
      if (node) await rm(node.dataDir, { recursive: true, force: true });
    }
    if (db && 'drop' in db) await (db as Db & { drop(): Promise<void> }).drop();
  });

  it('refuses what is not an accepted image with 415, and keeps nothing', async () => {
    const pdf = await upload(alpha, PDF_BYTES, 'image/jpeg');
    expect(pdf.status).toBe(415);
    expect(await pdf.json()).toEqual({
      code: 'UNSUPPORTED_MEDIA_TYPE',
      error: expect.stringMatching(/This file is a PDF document\. Upload a JPEG, PNG, WebP/),
    });
    const svg = await upload(alpha, SVG_BYTES, 'image/svg+xml');
    expect(svg.status).toBe(415);
    expect(((await svg.json()) as { error: string }).error).toMatch(/SVG/);
    expect(await storedFiles(alpha)).toEqual([]);
    if (db) expect(await db.prisma.upload.count()).toBe(0);
  });

  it('refuses a 50 MB file with 413 before reading it all, declared or not', async () => {
    const total = 50 * 1024 * 1024;
    const declared = await sendLarge(alpha, total, true);
    expect(declared.status).toBe(413);
    expect(JSON.parse(declared.body)).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
    // Refused on the header: far less than the whole file went out before the answer.
    expect(declared.sent).toBeLessThan(total / 2);

    const chunked = await sendLarge(alpha, total, false);
    expect(chunked.status).toBe(413);
    expect(JSON.parse(chunked.body)).toMatchObject({
      code: 'PAYLOAD_TOO_LARGE',
      error: expect.stringContaining('larger than 10 MB'),
    });
    expect(chunked.sent).toBeLessThan(total / 2);
    expect(await storedFiles(alpha)).toEqual([]);
  });

  it('refuses a 30000 × 30000 PNG as too many pixels', async () => {
    const res = await upload(alpha, pngClaiming(30_000, 30_000), 'image/png');
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({
      code: 'PAYLOAD_TOO_LARGE',
      error: expect.stringContaining('too many pixels (30000 × 30000)'),
      details: { width: 30_000, height: 30_000, maxPixels: 50_000_000 },
    });
    expect(await storedFiles(alpha)).toEqual([]);
    if (db) expect(await db.prisma.upload.count()).toBe(0);
  });

  it('refuses uploads from visitors and from other sites', async () => {
    const anonymous = await fetch(`${alpha.base}/api/uploads`, {
      method: 'POST',
      headers: { origin: alpha.base, 'content-type': 'image/png' },
      body: await smallPng(),
    });
    expect(anonymous.status).toBe(401);
    const foreign = await fetch(`${alpha.base}/api/uploads`, {
      method: 'POST',
      headers: {
        cookie: alpha.cookie,
        origin: 'https://evil.example',
        'content-type': 'image/png',
      },
      body: await smallPng(),
    });
    expect(foreign.status).toBe(403);
    const purpose = await upload(alpha, await smallPng(), 'image/png', 'banner');
    expect(purpose.status).toBe(400);
  });

  let posted: { postId: string; url: string; id: string };

  it('stores a phone photo upright without its metadata and serves it with our headers', async () => {
    const original = await phoneJpeg({ width: 300, height: 200 });
    expect(exifHasGps((await sharp(original).metadata()).exif)).toBe(true);
    const res = await upload(alpha, original, 'image/jpeg');
    expect(res.status).toBe(201);
    const uploaded = (await res.json()) as {
      id: string;
      url: string;
      thumbUrl: string;
      mimeType: string;
      width: number;
      height: number;
      blurhash: string;
    };
    expect(uploaded).toMatchObject({
      url: `${alpha.base}/media/uploads/${uploaded.id}.webp`,
      thumbUrl: `${alpha.base}/media/uploads/${uploaded.id}-thumb.webp`,
      mimeType: 'image/webp',
      width: 200,
      height: 300,
    });
    expect(await storedFiles(alpha)).toEqual([`${uploaded.id}-thumb.webp`, `${uploaded.id}.webp`]);

    // The GPS test: the stored file itself carries no metadata at all.
    const stored = await readFile(join(alpha.dataDir, 'uploads', `${uploaded.id}.webp`));
    const meta = await sharp(stored).metadata();
    expect(meta).toMatchObject({ format: 'webp', width: 200, height: 300 });
    expect(meta.exif).toBeUndefined();
    expect(meta.xmp).toBeUndefined();
    expect(meta.icc).toBeUndefined();
    expect(stored.includes(Buffer.from('SwarmPhone'))).toBe(false);

    const served = await fetch(uploaded.url);
    expect(served.status).toBe(200);
    expect(Object.fromEntries(served.headers)).toMatchObject({
      'content-type': 'image/webp',
      'x-content-type-options': 'nosniff',
      'content-security-policy': "default-src 'none'; sandbox; frame-ancestors 'none'",
      'cache-control': 'public, max-age=31536000, immutable',
    });
    expect(Buffer.from(await served.arrayBuffer()).equals(stored)).toBe(true);
    expect((await fetch(`${alpha.base}/media/uploads/nothing.svg`)).status).toBe(404);

    const { post } = (await trpc(alpha, 'posts.create', {
      content: 'A photo from my phone',
      media: [{ uploadId: uploaded.id, altText: 'A gradient, upright' }],
    })) as { post: { id: string; media: { url: string; altText: string }[] } };
    expect(post.media).toEqual([
      expect.objectContaining({ url: uploaded.url, altText: 'A gradient, upright' }),
    ]);
    // The wire shape peers read carries the absolute URL.
    const wire = (await (await fetch(`${alpha.base}/api/swarm/users/alice`)).json()) as {
      posts: { media: unknown[] }[];
    };
    expect(wire.posts[0]!.media).toEqual([
      { url: uploaded.url, mimeType: 'image/webp', altText: 'A gradient, upright' },
    ]);
    // An upload goes into one post only.
    const again = await fetch(`${alpha.base}/trpc/posts.create`, {
      method: 'POST',
      headers: { cookie: alpha.cookie, origin: alpha.base, 'content-type': 'application/json' },
      body: JSON.stringify({ content: 'again', media: [{ uploadId: uploaded.id, altText: '' }] }),
    });
    expect(again.status).toBe(400);
    posted = { postId: post.id, url: uploaded.url, id: uploaded.id };
  });

  it('a peer fetches the photo by its absolute URL and shows it from its own origin', async () => {
    const page = await fetch(`${beta.base}/@alice@${new URL(alpha.base).host}`, {
      headers: { cookie: beta.cookie, accept: 'text/html' },
    });
    expect(page.status).toBe(200);
    const html = await page.text();
    const src = [...html.matchAll(/src="(\/media\/proxy\?[^"]+)"/g)]
      .map((m) => m[1]!.replaceAll('&amp;', '&'))
      .find((s) => new URL(s, beta.base).searchParams.get('url') === posted.url);
    expect(src, html.slice(0, 2000)).toBeDefined();
    expect(html).toContain('referrerpolicy="no-referrer"');
    expect(html).toContain('loading="lazy"');
    const proxied = await fetch(new URL(src!, beta.base), { headers: { cookie: beta.cookie } });
    expect(proxied.status).toBe(200);
    expect(proxied.headers.get('content-type')).toBe('image/webp');
    const bytes = Buffer.from(await proxied.arrayBuffer());
    expect(bytes.equals(await readFile(join(alpha.dataDir, 'uploads', `${posted.id}.webp`)))).toBe(
      true,
    );
  });

  it('stores an avatar in S3 on the peer and serves it from there', async () => {
    const res = await upload(beta, await smallPng(640, 480), 'image/png', 'avatar');
    expect(res.status).toBe(201);
    const avatar = (await res.json()) as { id: string; url: string; width: number };
    expect(avatar.width).toBe(400);
    const { profile } = (await (await fetch(`${beta.base}/api/swarm/users/bob`)).json()) as {
      profile: { avatarUrl: string };
    };
    expect(profile.avatarUrl).toBe(avatar.url);
    const client = new S3Client({
      region: 'us-east-1',
      endpoint: s3.endpoint,
      forcePathStyle: true,
      credentials: S3RVER_CREDENTIALS,
    });
    const object = await client.send(
      new GetObjectCommand({ Bucket: s3.bucket, Key: `beta/${avatar.id}.webp` }),
    );
    const inBucket = Buffer.from(await object.Body!.transformToByteArray());
    const served = await fetch(avatar.url);
    expect(served.status).toBe(200);
    expect(Buffer.from(await served.arrayBuffer()).equals(inBucket)).toBe(true);
    expect(await storedFiles(beta)).toEqual([]);
    client.destroy();
    // The S3 client's Node-version notice came out as one JSON log line like everything else.
    const notJson = beta.process
      .output()
      .split('\n')
      .filter((line) => line.trim() !== '')
      .filter((line) => {
        try {
          JSON.parse(line);
          return false;
        } catch {
          return true;
        }
      });
    expect(notJson).toEqual([]);
  });

  it('deleting the post deletes its files', async () => {
    await trpc(alpha, 'posts.delete', { id: posted.postId });
    // Removed right after the deletion committed (the hourly sweep would retry).
    const deadline = Date.now() + 20_000;
    while ((await storedFiles(alpha)).length > 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(await storedFiles(alpha)).toEqual([]);
    expect((await fetch(posted.url)).status).toBe(404);
    if (db) expect(await db.prisma.upload.count()).toBe(0);
  });
});

/** A PNG of noise (a fixed seed): it stores as about 290 KB, nearly all of it the display file. */
async function noisePng(width = 400, height = 300): Promise<Uint8Array<ArrayBuffer>> {
  let seed = 42;
  const pixels = Buffer.alloc(width * height * 3);
  for (let i = 0; i < pixels.length; i++) {
    seed = (seed * 1_103_515_245 + 12_345) >>> 0;
    pixels[i] = seed >>> 24;
  }
  const png = await sharp(pixels, { raw: { width, height, channels: 3 } })
    .png()
    .toBuffer();
  return new Uint8Array(png);
}

interface UsageRow {
  handle: string;
  uploads: number;
  uploadBytes: number;
}

// The bounds on what uploads take (issue 22): the pending bound under 50 concurrent uploads, an
// account's daily bytes and the node's storage budget (small values given through the
// environment), an upload without a Content-Type, and the admin's view of the storage used.
describe('upload bounds on a running node', () => {
  const DAILY = 1_000_000;
  const BUDGET = 1_600_000;
  let db: Db | undefined;
  let gamma: Omit<Node, 'cookie'>;
  let admin: Node;
  const as = async (handle: string): Promise<Node> => ({
    ...gamma,
    cookie: await signUp(gamma.base, handle),
  });

  beforeAll(async () => {
    db = process.env.TEST_DATABASE_URL ? await createTestDb() : undefined;
    gamma = await startNode(
      { UPLOAD_DAILY_BYTES: String(DAILY), UPLOAD_STORAGE_BYTES: String(BUDGET) },
      db,
    );
    admin = { ...gamma, cookie: await signUp(gamma.base, 'root', true) };
  }, START_MS);

  afterAll(async () => {
    await gamma?.process.stop();
    if (gamma) await rm(gamma.dataDir, { recursive: true, force: true });
    if (db && 'drop' in db) await (db as Db & { drop(): Promise<void> }).drop();
  });

  /** The admin's listing of the accounts, through tRPC on the running node. */
  async function usage(): Promise<{
    users: UsageRow[];
    storage: { usedBytes: number; budgetBytes: number; dailyQuotaBytes: number };
  }> {
    const res = await fetch(`${gamma.base}/trpc/admin.users.list`, {
      headers: { cookie: admin.cookie, origin: gamma.base },
    });
    const body = (await res.json()) as { result: { data: Awaited<ReturnType<typeof usage>> } };
    expect(res.status, JSON.stringify(body)).toBe(200);
    return body.result.data;
  }

  /** Every row has its two files and every file its row: nothing half-written. */
  async function expectRowsMatchFiles() {
    const { users, storage } = await usage();
    const rows = users.reduce((n, u) => n + u.uploads, 0);
    const files = await storedFiles(gamma as Node);
    expect(files.every((f) => /^[0-9a-f-]{36}(-thumb)?\.webp$/.test(f))).toBe(true);
    expect(files).toHaveLength(rows * 2);
    expect(storage.usedBytes).toBe(users.reduce((n, u) => n + u.uploadBytes, 0));
    if (db) expect(await db.prisma.upload.count()).toBe(rows);
    return { users, storage };
  }

  /** The same 290 KB photo, one upload after the other, until one is refused (at most 10). */
  async function uploadUntilRefused(node: Node): Promise<Response> {
    const noise = await noisePng();
    for (let i = 0; i < 10; i++) {
      const res = await upload(node, noise, 'image/png');
      if (res.status !== 201) return res;
    }
    throw new Error('10 uploads of 290 KB were all stored');
  }

  const byHandle = (users: UsageRow[], handle: string) => users.find((u) => u.handle === handle)!;

  it('stores exactly 40 of 50 uploads sent at once by one account', async () => {
    const carol = await as('carol');
    const png = await smallPng();
    const answers = await Promise.all(
      Array.from({ length: 50 }, () => upload(carol, png, 'image/png')),
    );
    const statuses = answers.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(40);
    expect(statuses.filter((s) => s !== 201)).toEqual(Array(10).fill(429));
    const refused = answers.find((r) => r.status === 429)!;
    expect(await refused.json()).toMatchObject({
      code: 'RATE_LIMITED',
      error: expect.stringContaining('40 photos waiting to be posted'),
    });
    const ids = await Promise.all(
      answers
        .filter((r) => r.status === 201)
        .map(async (r) => ((await r.json()) as { id: string }).id),
    );
    const files = await storedFiles(gamma as Node);
    expect(files).toEqual(ids.flatMap((id) => [`${id}-thumb.webp`, `${id}.webp`]).sort());
    const { users } = await expectRowsMatchFiles();
    expect(byHandle(users, 'carol').uploads).toBe(40);
  }, 180_000);

  it('takes an image sent without a Content-Type, and says so when the body is empty', async () => {
    const dave = await as('dave');
    const res = await upload(dave, await phoneJpeg({ width: 300, height: 200 }), null);
    expect(res.status, await res.clone().text()).toBe(201);
    expect(await res.json()).toMatchObject({ mimeType: 'image/webp', width: 200, height: 300 });
    for (const type of [null, 'image/png']) {
      const empty = await upload(dave, new Uint8Array(0), type);
      expect(empty.status).toBe(400);
      expect(await empty.json()).toEqual({
        code: 'INVALID_REQUEST',
        error: 'The upload is empty: send the image file itself as the request body.',
      });
    }
    expect(byHandle((await expectRowsMatchFiles()).users, 'dave').uploads).toBe(1);
  });

  it("refuses an account's uploads past its daily bytes with 429", async () => {
    const erin = await as('erin');
    const last = await uploadUntilRefused(erin);
    expect(last.status).toBe(429);
    expect(Number(last.headers.get('retry-after'))).toBeGreaterThan(23 * 3600);
    expect(await last.json()).toMatchObject({
      code: 'UPLOAD_QUOTA_EXCEEDED',
      error: expect.stringMatching(/of the 977 KB an account may upload in a day/),
      details: { quotaBytes: DAILY },
    });
    const mine = byHandle((await expectRowsMatchFiles()).users, 'erin');
    expect(mine.uploads).toBeGreaterThanOrEqual(2);
    expect(mine.uploadBytes).toBeLessThanOrEqual(DAILY);
    // Refused because one more would not fit, not before.
    expect(mine.uploadBytes + mine.uploadBytes / mine.uploads).toBeGreaterThan(DAILY);
  });

  it('refuses an upload the node has no room for with 413', async () => {
    const frank = await as('frank');
    const last = await uploadUntilRefused(frank);
    expect(last.status).toBe(413);
    expect(await last.json()).toMatchObject({
      code: 'STORAGE_FULL',
      error: expect.stringContaining("This node's storage for photos is full"),
      details: { budgetBytes: BUDGET },
    });
    const { users, storage } = await expectRowsMatchFiles();
    const mine = byHandle(users, 'frank');
    expect(mine.uploadBytes).toBeLessThanOrEqual(DAILY);
    expect(storage).toEqual({
      usedBytes: expect.any(Number),
      budgetBytes: BUDGET,
      dailyQuotaBytes: DAILY,
    });
    expect(storage.usedBytes).toBeLessThanOrEqual(BUDGET);
    expect(storage.usedBytes + mine.uploadBytes / mine.uploads).toBeGreaterThan(BUDGET);
  });

  it("shows each account's stored photos on the admin's users page", async () => {
    const { users, storage } = await usage();
    const page = await fetch(`${gamma.base}/admin/users`, {
      headers: { cookie: admin.cookie, accept: 'text/html' },
    });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toMatch(/Photos take [\d.]+ [KMG]B of the node's\s+1\.5 MB storage budget/);
    expect(storage.usedBytes).toBeGreaterThan(0);
    for (const handle of ['carol', 'erin', 'frank']) {
      const row = byHandle(users, handle);
      expect(html).toContain(`data-bytes="${row.uploadBytes}"`);
    }
    // Not for people who are not admins.
    const member = await fetch(`${gamma.base}/trpc/admin.users.list`, {
      headers: { cookie: (await as('gina')).cookie, origin: gamma.base },
    });
    expect(member.status).toBe(403);
  });
});
