import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  NoSuchKey,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import type { S3Config } from '../config.ts';

/**
 * Where uploaded media live (issue #14 "Photos"), behind one interface: files under
 * `DATA_DIR/uploads` (embedded mode, one machine), or an S3-compatible bucket (production,
 * several replicas). Keys are flat names the upload service makes (`<uuid>.webp`); nothing a
 * client sends becomes a key.
 */
export interface MediaStorage {
  readonly kind: 'disk' | 's3';
  put(key: string, bytes: Uint8Array, contentType: string): Promise<void>;
  /** The stored bytes, or null when there is no such object. */
  get(key: string): Promise<Uint8Array | null>;
  /** Removes the object; an absent one is not an error (sweeps are retried). */
  delete(key: string): Promise<void>;
}

/** Keys the upload service makes: a UUID, an optional variant, an extension. */
const KEY = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(-[a-z]+)?\.[a-z]+$/;

function checkKey(key: string): string {
  if (!KEY.test(key)) throw new TypeError(`not a media key: ${key.slice(0, 80)}`);
  return key;
}

/** Files in `dir`; written to a temporary name and renamed, so a reader never sees half a file. */
export function createDiskStorage(dir: string): MediaStorage {
  let made: Promise<unknown> | undefined;
  return {
    kind: 'disk',
    async put(key, bytes) {
      made ??= mkdir(dir, { recursive: true });
      await made;
      const path = join(dir, checkKey(key));
      const temp = `${path}.${process.pid}.${Date.now()}.part`;
      try {
        await writeFile(temp, bytes);
        await rename(temp, path);
      } catch (error) {
        await rm(temp, { force: true });
        throw error;
      }
    },
    async get(key) {
      try {
        return new Uint8Array(await readFile(join(dir, checkKey(key))));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw error;
      }
    },
    async delete(key) {
      await rm(join(dir, checkKey(key)), { force: true });
    },
  };
}

/** An S3 bucket (AWS, or any service speaking the protocol: MinIO, Garage, R2…). */
export function createS3Storage(config: S3Config, client?: S3Client): MediaStorage {
  const s3 =
    client ??
    new S3Client({
      region: config.region,
      endpoint: config.endpoint,
      forcePathStyle: config.forcePathStyle,
      credentials:
        config.accessKeyId && config.secretAccessKey
          ? { accessKeyId: config.accessKeyId, secretAccessKey: config.secretAccessKey }
          : undefined,
      // Uploads are small and sent once; a slow store fails the upload rather than hang it.
      requestHandler: { requestTimeout: 20_000, connectionTimeout: 5_000 },
      maxAttempts: 3,
      // Checksums only where S3 requires them: many S3-compatible services refuse the SDK's
      // default trailing checksums.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
  const Bucket = config.bucket;
  const keyOf = (key: string) => `${config.prefix}${checkKey(key)}`;
  return {
    kind: 's3',
    async put(key, bytes, contentType) {
      await s3.send(
        new PutObjectCommand({
          Bucket,
          Key: keyOf(key),
          Body: bytes,
          ContentType: contentType,
          ContentLength: bytes.byteLength,
        }),
      );
    },
    async get(key) {
      try {
        const answer = await s3.send(new GetObjectCommand({ Bucket, Key: keyOf(key) }));
        return answer.Body ? await answer.Body.transformToByteArray() : null;
      } catch (error) {
        if (
          error instanceof NoSuchKey ||
          (error instanceof S3ServiceException && error.$metadata.httpStatusCode === 404)
        ) {
          return null;
        }
        throw error;
      }
    },
    async delete(key) {
      await s3.send(new DeleteObjectCommand({ Bucket, Key: keyOf(key) }));
    },
  };
}
