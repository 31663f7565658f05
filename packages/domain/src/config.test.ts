import { describe, expect, it } from 'vitest';
import { parseConfig } from './config.ts';

function errorsOf(env: Record<string, string>) {
  const result = parseConfig(env);
  if (result.ok) throw new Error('expected the configuration to be refused');
  return result.errors;
}

describe('parseConfig', () => {
  it('gives a working laptop node with no variables at all', () => {
    const result = parseConfig({});
    expect(result).toEqual({
      ok: true,
      value: {
        port: 3000,
        host: '0.0.0.0',
        domain: 'localhost:3000',
        databaseUrl: undefined,
        dataDir: './data',
        seeds: [],
        dev: false,
        gossipIntervalMs: 60_000,
        drainTimeoutMs: 10_000,
        logLevel: 'info',
        adminToken: undefined,
        nodeName: 'localhost:3000',
        nodeDescription: '',
        demoContent: false,
        nodeIsNsfw: false,
        rateLimitPerMin: 600,
        trustProxy: false,
        metricsPort: undefined,
        metricsHost: '127.0.0.1',
        originCompat: true,
        redisUrl: undefined,
        readCacheTtlMs: 1_000,
        signUpLimitPerHour: 5,
        appRateLimitPer5Min: 300,
        liveStreamsMax: 5_000,
        liveStreamsPerUser: 8,
        handlesMax: 200_000,
        uploadMaxBytes: 10 * 1024 * 1024,
        uploadMaxPixels: 50_000_000,
        uploadDailyBytes: 200 * 1024 * 1024,
        uploadStorageBytes: 20 * 1024 ** 3,
        s3: undefined,
        remoteContent: {
          crawlPerMinute: 6,
          keepPerAuthor: 200,
          keepFollowedDays: 30,
          keepOtherDays: 7,
          maxCopies: 200_000,
        },
      },
    });
  });

  it('reads the crawl budget and the retention of remote copies', () => {
    const result = parseConfig({
      SWARM_CRAWL_PER_MIN: '0',
      SWARM_KEEP_FOLLOWED_POSTS: '50',
      SWARM_KEEP_FOLLOWED_DAYS: '90',
      SWARM_KEEP_OTHER_DAYS: '2',
      SWARM_REMOTE_POSTS_MAX: '5000',
    });
    expect(result.ok && result.value.remoteContent).toEqual({
      crawlPerMinute: 0,
      keepPerAuthor: 50,
      keepFollowedDays: 90,
      keepOtherDays: 2,
      maxCopies: 5000,
    });
    const refused = parseConfig({ SWARM_REMOTE_POSTS_MAX: '10', SWARM_KEEP_OTHER_DAYS: '0' });
    expect(refused.ok).toBe(false);
    expect(!refused.ok && refused.errors.join(' ')).toMatch(
      /SWARM_REMOTE_POSTS_MAX.*SWARM_KEEP_OTHER_DAYS|SWARM_KEEP_OTHER_DAYS.*SWARM_REMOTE_POSTS_MAX/,
    );
  });

  it('reads the upload limits and the S3 settings', () => {
    const result = parseConfig({
      UPLOAD_MAX_BYTES: '2000000',
      UPLOAD_MAX_PIXELS: '20000000',
      UPLOAD_DAILY_BYTES: '50000000',
      UPLOAD_STORAGE_BYTES: '1000000000000',
      S3_BUCKET: ' media ',
      S3_ENDPOINT: 'http://127.0.0.1:9000',
      S3_ACCESS_KEY_ID: 'key',
      S3_SECRET_ACCESS_KEY: 'secret',
      S3_FORCE_PATH_STYLE: '1',
      S3_PREFIX: 'node-a/',
    });
    expect(result.ok && result.value).toMatchObject({
      uploadMaxBytes: 2_000_000,
      uploadMaxPixels: 20_000_000,
      uploadDailyBytes: 50_000_000,
      uploadStorageBytes: 1_000_000_000_000,
      s3: {
        bucket: 'media',
        region: 'us-east-1',
        endpoint: 'http://127.0.0.1:9000',
        accessKeyId: 'key',
        secretAccessKey: 'secret',
        forcePathStyle: true,
        prefix: 'node-a/',
      },
    });
    expect(errorsOf({ S3_ENDPOINT: 'http://127.0.0.1:9000' })).toEqual([
      'S3_ENDPOINT set without S3_BUCKET: set S3_BUCKET to store media in S3',
    ]);
    expect(errorsOf({ S3_BUCKET: 'media', S3_ACCESS_KEY_ID: 'key' })).toEqual([
      'S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY go together: set both or neither',
    ]);
  });

  it('reads the private metrics port and its address', () => {
    const result = parseConfig({ METRICS_PORT: '9464', METRICS_HOST: ' 10.0.0.5 ' });
    expect(result.ok && result.value).toMatchObject({ metricsPort: 9464, metricsHost: '10.0.0.5' });
    expect(errorsOf({ METRICS_PORT: '0' })).toEqual([
      'METRICS_PORT must be an integer between 1 and 65535',
    ]);
  });

  it('SWARM_ORIGIN_COMPAT is on by default and off with 0', () => {
    const off = parseConfig({ SWARM_ORIGIN_COMPAT: '0' });
    expect(off.ok && off.value.originCompat).toBe(false);
    const on = parseConfig({ SWARM_ORIGIN_COMPAT: '1' });
    expect(on.ok && on.value.originCompat).toBe(true);
    expect(parseConfig({ SWARM_ORIGIN_COMPAT: 'yes' }).ok).toBe(false);
  });

  it('derives the default domain from PORT and reads every variable', () => {
    const result = parseConfig({
      PORT: '4100',
      SWARM_SEEDS: 'Seed.Example, localhost:4100,other.example:8443,seed.example',
      SWARM_DEV: '1',
      SWARM_GOSSIP_INTERVAL_MS: '5000',
      SWARM_DRAIN_TIMEOUT_MS: '2500',
      DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/swarm',
      LOG_LEVEL: 'debug',
      ADMIN_TOKEN: 'a'.repeat(32),
      SWARM_NODE_NAME: ' Alpha ',
      SWARM_SIGNUPS_PER_HOUR: '20',
      SWARM_HANDLES_MAX: '2000',
    });
    expect(result.ok && result.value).toMatchObject({
      port: 4100,
      domain: 'localhost:4100',
      // lower-cased, deduplicated, and never ourselves
      seeds: ['seed.example', 'other.example:8443'],
      dev: true,
      gossipIntervalMs: 5000,
      drainTimeoutMs: 2500,
      databaseUrl: 'postgres://postgres@127.0.0.1:5432/swarm',
      logLevel: 'debug',
      nodeName: 'Alpha',
      signUpLimitPerHour: 20,
      handlesMax: 2000,
    });
  });

  it.each([
    [{ PORT: 'abc' }, 'PORT must be an integer between 1 and 65535'],
    [{ PORT: '70000' }, 'PORT must be an integer between 1 and 65535'],
    [{ PORT: '3000.5' }, 'PORT must be an integer between 1 and 65535'],
    [{ SWARM_DOMAIN: 'https://x.example/' }, 'SWARM_DOMAIN must be a domain'],
    [{ SWARM_SEEDS: 'good.example,bad domain' }, 'not valid: bad domain'],
    [{ SWARM_DEV: 'yes' }, 'SWARM_DEV must be 1 or 0'],
    [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL must start with postgres:// or pglite:'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL must be one of'],
    [{ SWARM_DRAIN_TIMEOUT_MS: '-1' }, 'SWARM_DRAIN_TIMEOUT_MS must be an integer between 0 and'],
    [{ ADMIN_TOKEN: 'short' }, 'ADMIN_TOKEN must be at least 24 characters'],
    [{ SWARM_SIGNUPS_PER_HOUR: '0' }, 'SWARM_SIGNUPS_PER_HOUR must be an integer between 1'],
    [{ SWARM_HANDLES_MAX: '10' }, 'SWARM_HANDLES_MAX must be an integer between 100'],
    [{ UPLOAD_MAX_BYTES: '5' }, 'UPLOAD_MAX_BYTES must be an integer between 10000'],
    [{ UPLOAD_MAX_PIXELS: '1e9' }, 'UPLOAD_MAX_PIXELS must be an integer between 10000'],
    [{ S3_ENDPOINT: 'ftp://x', S3_BUCKET: 'b' }, 'S3_ENDPOINT must be an http(s) URL'],
    [
      { SWARM_GOSSIP_INTERVAL_MS: '10' },
      'SWARM_GOSSIP_INTERVAL_MS must be an integer between 1000',
    ],
  ])('refuses %o with a message naming the variable', (env, message) => {
    expect(errorsOf(env).join('\n')).toContain(message);
  });

  it('reports every bad variable at once', () => {
    expect(errorsOf({ PORT: 'x', LOG_LEVEL: 'x', SWARM_DEV: 'x' })).toHaveLength(3);
  });
});
