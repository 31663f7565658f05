import { randomUUID } from 'node:crypto';
import { baseUrlForDomain, formatBytes, ok, uuidSchema, type Result } from '@swarm/contract';
import type { Db } from '@swarm/db';
import type { Clock } from '../clock.ts';
import type { NodeConfig } from '../config.ts';
import type { Logger } from '../logger.ts';
import { commitIfOk, refuse, type Refusal, type Tx } from '../refusal.ts';
import {
  processImage,
  UPLOAD_PURPOSES,
  type ProcessedImage,
  type UploadPurpose,
} from './image-processing.ts';
import { describeUpload, type UploadDescription } from './describe-upload.ts';
import type { MediaStorage } from './media-storage.ts';
import { readUpload } from './read-upload.ts';
import { uploadViewOf, type UploadView } from './upload-view.ts';
import { lockAdmissions, quotaRefusal, uploadUsage, type QuotaConfig } from './upload-quota.ts';

/**
 * Uploaded images (issue #14 "Photos"; docs/protocol.md "Uploads and media URLs"). An upload is
 * read with a byte cap, processed (image-processing.ts), its two files written to the media
 * storage, then its row inserted; when anything fails, what was written is removed, so a failed
 * upload leaves no file and no row. A post names its uploads by id and takes them in its own
 * transaction; an avatar or header upload is set on the profile at once. The housekeeping sweep
 * removes the files, then the rows, of uploads never attached after a day, of deleted posts, of
 * replaced avatars and headers, and of deleted accounts.
 */
export const UPLOADS = {
  /** Where the files are served, on this node's origin (the web app). */
  path: '/media/uploads',
  /** Uploads of one person not yet in a post (a bound on what they can leave lying around). */
  maxPending: 40,
  /** An upload never put into a post is removed after this long. */
  unattachedTtlMs: 24 * 60 * 60_000,
  /** Rows one query of the sweep reads (it pages through all of them). */
  sweepBatch: 200,
  /** Browsers and proxies may keep a file this long (seconds): a file never changes. */
  maxAgeSec: 365 * 24 * 60 * 60,
} as const;

/** An upload taken by a post (`post-actions.service.ts`). */
export interface AttachedUpload {
  url: string;
  mimeType: string;
  blurhash: string;
  /** What an app said the image shows (the post's alt text unless it says another). */
  description: string;
}

export interface UploadInput {
  ownerId: string;
  purpose: string | null | undefined;
  /** The request's Content-Length, when it said one: too large is refused before reading. */
  declaredLength: number | null;
  body: ReadableStream<Uint8Array> | null;
}

export interface UploadService {
  readonly storage: MediaStorage;
  accept(input: UploadInput): Promise<Result<UploadView, Refusal>>;
  /** A person's photo upload not yet discarded, by id; null when it is not theirs. */
  get(ownerId: string, uploadId: string): Promise<UploadView | null>;
  /** Sets its description and focal point until it is in a post (describe-upload.ts). */
  describe(
    ownerId: string,
    uploadId: string,
    input: UploadDescription,
  ): Promise<Result<UploadView, Refusal>>;
  /** A stored file by its name in `UPLOADS.path` (`<id>.webp`, `<id>-thumb.webp`), or null. */
  file(name: string): Promise<{ bytes: Uint8Array; contentType: string } | null>;
  /** Whether `url` is a file of this node's uploads (pages load it directly, not proxied). */
  localPathOf(url: string): string | null;
  /**
   * Inside a post's transaction: the uploads named become the post's. Refused (the post's
   * transaction then rolls back) when one is not the author's, unknown, or already used.
   */
  attachToPost(
    tx: Tx,
    input: { ownerId: string; postId: string; uploadIds: string[]; at: Date },
  ): Promise<Result<Map<string, AttachedUpload>, Refusal>>;
  /**
   * What `attachToPost` would give these uploads, without taking them (the object a post's
   * author signs before posting names their URLs): only the owner's free ones are answered.
   */
  peek(ownerId: string, uploadIds: string[]): Promise<Map<string, AttachedUpload>>;
  /** Inside a post's deletion: its uploads are discarded (the sweep removes their files). */
  discardForPost(tx: Tx, postId: string, at: Date): Promise<number>;
  /** Removes what should go (see above): files first, then the row. */
  sweep(): Promise<{ removed: number; failed: number }>;
  /** A sweep in the background (after a post's deletion committed), at most one at a time. */
  sweepSoon(): void;
}

const FILE_NAME = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})(-thumb)?\.webp$/;

const keysOf = (id: string) => [`${id}.webp`, `${id}-thumb.webp`];

/** The Content-Length of a request, or null when it has none (chunked) or it is not a number. */
export function declaredLengthOf(header: string | null): number | null {
  if (header === null || !/^\d{1,15}$/.test(header.trim())) return null;
  return Number(header.trim());
}

export function createUploadService(deps: {
  db: Db;
  clock: Clock;
  logger: Logger;
  config: Pick<NodeConfig, 'domain' | 'uploadMaxBytes' | 'uploadMaxPixels'> & QuotaConfig;
  storage: MediaStorage;
}): UploadService {
  const { db, clock, logger, config, storage } = deps;
  const prisma = db.prisma;
  const base = `${baseUrlForDomain(config.domain)}${UPLOADS.path}/`;
  const tooLarge = () =>
    refuse(
      'PAYLOAD_TOO_LARGE',
      `This file is larger than ${formatBytes(config.uploadMaxBytes)}, the most this node accepts.`,
      { field: 'file', details: { maxBytes: config.uploadMaxBytes } },
    );

  /** The body, up to the cap: reading stops at the first byte beyond it. */
  async function readCapped(
    body: ReadableStream<Uint8Array>,
  ): Promise<Result<Uint8Array, Refusal<'PAYLOAD_TOO_LARGE' | 'INVALID_REQUEST'>>> {
    const reader = body.getReader();
    const chunks: Uint8Array[] = [];
    let size = 0;
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        size += value.byteLength;
        if (size > config.uploadMaxBytes) {
          void reader.cancel().catch(() => {});
          return tooLarge();
        }
        chunks.push(value);
      }
    } catch (error) {
      // adapter-node's own cap (BODY_SIZE_LIMIT) ends the stream with a 413.
      if ((error as { status?: number }).status === 413) return tooLarge();
      return refuse('INVALID_REQUEST', 'The upload was cut short; try again.', { field: 'file' });
    }
    const bytes = new Uint8Array(size);
    let at = 0;
    for (const chunk of chunks) {
      bytes.set(chunk, at);
      at += chunk.byteLength;
    }
    return ok(bytes);
  }

  const empty = () =>
    refuse(
      'INVALID_REQUEST',
      'The upload is empty: send the image file itself as the request body.',
      { field: 'file' },
    );

  async function removeFiles(id: string) {
    for (const key of keysOf(id)) await storage.delete(key);
  }

  /** Writes both files; on failure removes whatever was written and rethrows. */
  async function store(id: string, image: ProcessedImage) {
    try {
      await storage.put(`${id}.webp`, image.display.bytes, image.mimeType);
      await storage.put(`${id}-thumb.webp`, image.thumb.bytes, image.mimeType);
    } catch (error) {
      await removeFiles(id).catch((err: unknown) =>
        logger.warn({ err, id }, 'uploads: could not remove the files of a failed upload'),
      );
      throw error;
    }
  }

  let sweeping: Promise<{ removed: number; failed: number }> | undefined;
  /** Discarded uploads go soon rather than at the next hourly sweep. */
  function sweepSoon() {
    sweeping ??= runSweep()
      .catch((err: unknown) => {
        logger.warn({ err }, 'uploads: sweep failed');
        return { removed: 0, failed: 0 };
      })
      .finally(() => (sweeping = undefined));
  }

  /**
   * The ids of every row `read` finds that `pick` keeps, a page (by id) at a time, so a busy
   * node is swept in full while only the ids to remove are held.
   */
  async function inPages<T extends { id: string }>(
    read: (after: { id?: { gt: string } }) => Promise<T[]>,
    pick: (row: T) => boolean = () => true,
  ): Promise<{ id: string }[]> {
    const ids: { id: string }[] = [];
    let after: string | undefined;
    for (;;) {
      const page = await read(after ? { id: { gt: after } } : {});
      for (const row of page) if (pick(row)) ids.push({ id: row.id });
      after = page.at(-1)?.id;
      if (page.length < UPLOADS.sweepBatch) return ids;
    }
  }

  async function runSweep() {
    const cutoff = new Date(clock.now().getTime() - UPLOADS.unattachedTtlMs);
    const doomed = await inPages((after) =>
      prisma.upload.findMany({
        where: {
          ...after,
          OR: [
            { discardedAt: { not: null } },
            { ownerId: null },
            { attachedAt: null, createdAt: { lt: cutoff } },
            // Its post was removed outright (the account went, a moderator purged it).
            { purpose: 'post', attachedAt: { not: null }, postId: null },
          ],
        },
        select: { id: true },
        orderBy: { id: 'asc' },
        take: UPLOADS.sweepBatch,
      }),
    );
    // Avatars and headers no longer on their owner's profile (changed in the settings form):
    // all of them, since the current ones (most rows) stay and would fill any first page.
    const settledBefore = clock.now().getTime() - 60_000;
    const replaced = await inPages(
      (after) =>
        prisma.upload.findMany({
          where: {
            ...after,
            purpose: { in: ['avatar', 'header'] },
            attachedAt: { not: null },
            discardedAt: null,
          },
          select: {
            id: true,
            purpose: true,
            attachedAt: true,
            owner: { select: { avatarUrl: true, headerUrl: true } },
          },
          orderBy: { id: 'asc' },
          take: UPLOADS.sweepBatch,
        }),
      (upload) => {
        const current =
          upload.purpose === 'avatar' ? upload.owner?.avatarUrl : upload.owner?.headerUrl;
        // Set at least a minute ago: a profile being written right now is left alone.
        const settled = upload.attachedAt!.getTime() < settledBefore;
        return settled && current !== `${base}${upload.id}.webp`;
      },
    );
    doomed.push(...replaced);
    let removed = 0;
    let failed = 0;
    for (const { id } of doomed) {
      try {
        await removeFiles(id);
        await prisma.upload.deleteMany({ where: { id } });
        removed++;
      } catch (err) {
        // The row stays: the next sweep tries again.
        failed++;
        logger.warn({ err, id }, 'uploads: could not remove an upload');
      }
    }
    if (removed > 0) logger.info(`uploads: removed ${removed} uploads`);
    return { removed, failed };
  }

  return {
    storage,

    async accept({ ownerId, purpose: rawPurpose, declaredLength, body }) {
      const purpose = (rawPurpose ?? 'post') as UploadPurpose;
      if (!UPLOAD_PURPOSES.includes(purpose)) {
        return refuse(
          'INVALID_REQUEST',
          `An upload is for a post, an avatar or a header (purpose=post, avatar or header).`,
          { field: 'purpose' },
        );
      }
      if (declaredLength !== null && declaredLength > config.uploadMaxBytes) return tooLarge();
      // Early: an account or a node already at a bound is refused before the body is read.
      const early = quotaRefusal(
        await uploadUsage(prisma, ownerId, clock.now()),
        { purpose, bytes: 0, maxPending: UPLOADS.maxPending, now: clock.now() },
        config,
      );
      if (!early.ok) return early;
      const read = body ? await readCapped(body) : ok(new Uint8Array(0));
      if (!read.ok) return read;
      if (read.value.byteLength === 0) return empty();
      const processed = await processImage(read.value, {
        purpose,
        maxPixels: config.uploadMaxPixels,
      });
      if (!processed.ok) return processed;
      const image = processed.value;
      const id = randomUUID();
      try {
        await store(id, image);
      } catch (err) {
        logger.error({ err, storage: storage.kind }, 'uploads: the media storage failed');
        return refuse('UNAVAILABLE', 'The media storage is not answering; try again shortly.');
      }
      const now = clock.now();
      const row = {
        id,
        ownerId,
        purpose,
        mimeType: image.mimeType,
        width: image.display.width,
        height: image.display.height,
        blurhash: image.blurhash,
        bytes: image.display.bytes.byteLength + image.thumb.bytes.byteLength,
        createdAt: now,
      };
      const url = `${base}${id}.webp`;
      let written: Result<unknown, Refusal>;
      try {
        written = await commitIfOk(db, async (tx): Promise<Result<void, Refusal>> => {
          // Again with the real size, under the lock: concurrent uploads pass one at a time.
          await lockAdmissions(tx);
          const refused = quotaRefusal(
            await uploadUsage(tx, ownerId, now),
            { purpose, bytes: row.bytes, maxPending: UPLOADS.maxPending, now },
            config,
          );
          if (!refused.ok) return refused;
          if (purpose === 'post') {
            await tx.upload.create({ data: row });
            return ok(undefined);
          }
          const field = purpose === 'avatar' ? 'avatarUrl' : 'headerUrl';
          const { count } = await tx.user.updateMany({
            where: { id: ownerId },
            data: { [field]: url, updatedAt: now },
          });
          if (count === 0) return refuse('USER_NOT_FOUND', 'This account does not exist any more.');
          await tx.upload.updateMany({
            where: { ownerId, purpose, attachedAt: { not: null }, discardedAt: null },
            data: { discardedAt: now },
          });
          await tx.upload.create({ data: { ...row, attachedAt: now } });
          return ok(undefined);
        });
      } catch (error) {
        await removeFiles(id).catch(() => {});
        throw error;
      }
      if (!written.ok) {
        await removeFiles(id).catch(() => {});
        return written;
      }
      if (purpose !== 'post') sweepSoon();
      return ok(
        uploadViewOf(base, {
          ...row,
          description: '',
          focusX: null,
          focusY: null,
          attachedAt: purpose === 'post' ? null : now,
        }),
      );
    },

    get: (ownerId, uploadId) => readUpload({ db, base }, ownerId, uploadId),
    describe: (ownerId, uploadId, input) => describeUpload({ db, base }, ownerId, uploadId, input),

    async file(name) {
      if (!FILE_NAME.test(name)) return null;
      const bytes = await storage.get(name);
      return bytes ? { bytes, contentType: 'image/webp' } : null;
    },

    localPathOf(url) {
      if (!url.startsWith(base)) return null;
      const name = url.slice(base.length);
      return FILE_NAME.test(name) ? `${UPLOADS.path}/${name}` : null;
    },

    async attachToPost(tx, { ownerId, postId, uploadIds, at }) {
      const attached = new Map<string, AttachedUpload>();
      if (uploadIds.length === 0) return ok(attached);
      const unique = [...new Set(uploadIds)];
      if (
        unique.length !== uploadIds.length ||
        !unique.every((id) => uuidSchema.safeParse(id).success)
      ) {
        return refuse('INVALID_REQUEST', 'Each photo can be attached once, by its upload id.', {
          field: 'media',
        });
      }
      // Taken only if still free: two posts racing for one upload cannot both have it.
      const { count } = await tx.upload.updateMany({
        where: {
          id: { in: unique },
          ownerId,
          purpose: 'post',
          attachedAt: null,
          discardedAt: null,
        },
        data: { postId, attachedAt: at },
      });
      if (count !== unique.length) {
        return refuse(
          'INVALID_REQUEST',
          'A photo of this post is not available any more (already posted, or removed after a day); attach it again.',
          { field: 'media' },
        );
      }
      const rows = await tx.upload.findMany({
        where: { id: { in: unique } },
        select: { id: true, mimeType: true, blurhash: true, description: true },
      });
      for (const row of rows) {
        attached.set(row.id, {
          url: `${base}${row.id}.webp`,
          mimeType: row.mimeType,
          blurhash: row.blurhash,
          description: row.description,
        });
      }
      return ok(attached);
    },

    async peek(ownerId, uploadIds) {
      const ids = uploadIds.filter((id) => uuidSchema.safeParse(id).success);
      const rows =
        ids.length === 0
          ? []
          : await prisma.upload.findMany({
              where: {
                id: { in: ids },
                ownerId,
                purpose: 'post',
                attachedAt: null,
                discardedAt: null,
              },
              select: { id: true, mimeType: true, blurhash: true, description: true },
            });
      return new Map(
        rows.map((row) => [
          row.id,
          {
            url: `${base}${row.id}.webp`,
            mimeType: row.mimeType,
            blurhash: row.blurhash,
            description: row.description,
          },
        ]),
      );
    },

    async discardForPost(tx, postId, at) {
      const { count } = await tx.upload.updateMany({
        where: { postId, discardedAt: null },
        data: { discardedAt: at },
      });
      return count;
    },

    async sweep() {
      if (sweeping) await sweeping;
      return runSweep();
    },

    sweepSoon,
  };
}
