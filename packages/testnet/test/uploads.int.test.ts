import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDiskStorage, createS3Storage, type MediaStorage } from '@swarm/domain';
import { authServicesOf } from '@swarm/auth';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestNode, type TestNode } from './harness.ts';
import { phoneJpeg, smallPng } from '../src/image-fixtures.ts';
import { startS3Server, type TestS3Server } from '../src/s3-server.ts';

// The upload service on a real database: nothing half-written when the storage fails, an
// upload taken by one post only and only by its owner, and the S3 storage against a server
// speaking the protocol (s3rver).

const body = (bytes: Uint8Array) => new Blob([bytes as Uint8Array<ArrayBuffer>]).stream();

describe('uploads, nothing half-written', () => {
  let t: TestNode;
  let dir: string;
  let failPut: number | null = null;
  let alice: string;
  let bob: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'swarm-uploads-int-'));
    const disk = createDiskStorage(dir);
    let puts = 0;
    // The storage fails on the n-th write when told to (a full disk, an S3 outage).
    const flaky: MediaStorage = {
      ...disk,
      put: async (key, bytes, type) => {
        puts++;
        if (failPut !== null && puts === failPut) throw new Error('disk full');
        return disk.put(key, bytes, type);
      },
    };
    t = await createTestNode({}, { mediaStorage: flaky });
    const auth = authServicesOf(t.node);
    for (const handle of ['alice', 'bob']) {
      const created = await auth.accounts.createUser({
        handle,
        password: 'correct horse battery',
        isAdmin: false,
      });
      if (!created.ok) throw new Error(created.reason.message);
      if (handle === 'alice') alice = created.value.user.id;
      else bob = created.value.user.id;
    }
    // Counted from here.
    puts = 0;
    failPut = 2;
  });
  afterAll(async () => {
    await t.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('a storage failure halfway leaves no file and no row', async () => {
    expect(
      await t.node.uploads.accept({
        ownerId: alice,
        purpose: 'post',
        declaredLength: null,
        body: body(await phoneJpeg()),
      }),
    ).toMatchObject({ ok: false, reason: { code: 'UNAVAILABLE' } });
    expect(await readdir(dir)).toEqual([]);
    expect(await t.node.db.prisma.upload.count()).toBe(0);
    failPut = null;
  });

  it('an upload goes into one post of its owner; a refused post leaves it free', async () => {
    const uploaded = await t.node.uploads.accept({
      ownerId: alice,
      purpose: 'post',
      declaredLength: null,
      body: body(await smallPng()),
    });
    if (!uploaded.ok) throw new Error(uploaded.reason.message);
    const { id } = uploaded.value;
    const byBob = await t.node.actions.posts.create(bob, {
      content: 'not mine',
      media: [{ uploadId: id, altText: '' }],
    });
    expect(byBob).toMatchObject({ ok: false, reason: { code: 'INVALID_REQUEST', field: 'media' } });
    expect(await t.node.db.prisma.post.count()).toBe(0);
    const both = await t.node.actions.posts.create(alice, {
      content: 'twice',
      media: [
        { uploadId: id, altText: 'a' },
        { uploadId: id, altText: 'b' },
      ],
    });
    expect(both).toMatchObject({ ok: false, reason: { code: 'INVALID_REQUEST' } });
    const mine = await t.node.actions.posts.create(alice, {
      content: 'mine',
      media: [{ uploadId: id, altText: 'a square' }],
    });
    expect(mine.ok).toBe(true);
    const row = await t.node.db.prisma.mediaItem.findFirstOrThrow({});
    expect(row).toMatchObject({ url: uploaded.value.url, mimeType: 'image/webp' });
    expect(row.blurhash).toBe(uploaded.value.blurhash);
  });

  it('refuses an empty upload and an unknown purpose', async () => {
    expect(
      await t.node.uploads.accept({
        ownerId: alice,
        purpose: 'post',
        declaredLength: 0,
        body: body(new Uint8Array()),
      }),
    ).toMatchObject({ ok: false, reason: { code: 'INVALID_REQUEST' } });
    expect(
      await t.node.uploads.accept({ ownerId: alice, purpose: 'x', declaredLength: 0, body: null }),
    ).toMatchObject({ ok: false, reason: { code: 'INVALID_REQUEST', field: 'purpose' } });
  });
});

describe('S3 media storage against s3rver', () => {
  let s3: TestS3Server;
  beforeAll(async () => {
    s3 = await startS3Server();
  });
  afterAll(() => s3?.close());

  it('puts, gets and deletes objects under its prefix', async () => {
    const storage = createS3Storage({
      bucket: s3.bucket,
      region: 'us-east-1',
      endpoint: s3.endpoint,
      accessKeyId: 'S3RVER',
      secretAccessKey: 'S3RVER',
      forcePathStyle: true,
      prefix: 'node-a/',
    });
    const key = '0b5c8b5e-8a3b-4f7e-9c1d-2f3e4a5b6c7d.webp';
    const bytes = new Uint8Array([82, 73, 70, 70, 1, 2, 3]);
    expect(await storage.get(key)).toBeNull();
    await storage.put(key, bytes, 'image/webp');
    expect(await storage.get(key)).toEqual(bytes);
    await storage.delete(key);
    expect(await storage.get(key)).toBeNull();
    // Deleting what is not there is not an error (sweeps are retried).
    await storage.delete(key);
    await expect(storage.put('../escape.webp', bytes, 'image/webp')).rejects.toThrow(
      'not a media key',
    );
  });
});
