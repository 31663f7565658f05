import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';

/** The access key s3rver accepts (any signature made with it verifies). */
export const S3RVER_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } as const;

export interface TestS3Server {
  endpoint: string;
  bucket: string;
  /** The node's S3_* variables for this server. */
  env: Record<string, string>;
  close(): Promise<void>;
}

/**
 * A server speaking the S3 protocol (s3rver, files in a temporary folder) with one bucket: what
 * production's object storage is to the node, on loopback, for the media storage tests.
 */
export async function startS3Server(bucket = 'swarm-media'): Promise<TestS3Server> {
  const directory = await mkdtemp(join(tmpdir(), 'swarm-s3-'));
  const server = new S3rver({
    port: 0,
    address: '127.0.0.1',
    silent: true,
    directory,
    configureBuckets: [{ name: bucket }],
  });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    endpoint,
    bucket,
    env: {
      S3_BUCKET: bucket,
      S3_ENDPOINT: endpoint,
      S3_REGION: 'us-east-1',
      S3_ACCESS_KEY_ID: S3RVER_CREDENTIALS.accessKeyId,
      S3_SECRET_ACCESS_KEY: S3RVER_CREDENTIALS.secretAccessKey,
      S3_FORCE_PATH_STYLE: '1',
    },
    close: async () => {
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}
