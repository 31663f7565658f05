import { z } from 'zod';
import { parseDomain } from '@swarm/contract';

/**
 * The node's configuration, parsed once from the environment by an entry point and passed
 * down. Nothing below an entry point reads process.env (docs/architecture.md).
 */
export interface NodeConfig {
  port: number;
  host: string;
  domain: string;
  /** undefined → embedded PGlite under dataDir; `pglite:<path>` or `postgres://…` otherwise. */
  databaseUrl: string | undefined;
  dataDir: string;
  seeds: string[];
  /** Development mode: plain http and private addresses allowed for loopback peers. */
  dev: boolean;
  gossipIntervalMs: number;
  /** On SIGTERM/SIGINT, how long in-flight requests and background steps may take to finish. */
  drainTimeoutMs: number;
  logLevel: LogLevel;
  adminToken: string | undefined;
  nodeName: string;
  nodeDescription: string;
  demoContent: boolean;
  /** The node hosts NSFW content as a whole (`nodeIsNsfw` in timeline answers). */
  nodeIsNsfw: boolean;
  /** Token-bucket budget per minute for POSTs to /api/swarm/*, per client IP and per signed source node. */
  rateLimitPerMin: number;
  /** Take the client IP from X-Forwarded-For (only behind a reverse proxy that sets it). */
  trustProxy: boolean;
  /** A second port answering GET /metrics without a token (METRICS_PORT); off when undefined. */
  metricsPort: number | undefined;
  /** Address of that port (METRICS_HOST, default 127.0.0.1): keep it private. */
  metricsHost: string;
  /**
   * Accept writes from peers of the origin profile (body-signed, no user signatures; docs/protocol.md
   * "Peers of the origin profile"). Off: their writes get 401, reads still work.
   */
  originCompat: boolean;
  /** Rate limits and cache invalidations shared through Redis instead of Postgres (replicas). */
  redisUrl: string | undefined;
  /** How long the gateway may answer a public read from its cache. */
  readCacheTtlMs: number;
  /** Web sign-ups per client address per hour (a burst of this many, then refilled evenly). */
  signUpLimitPerHour: number;
  /** Client-API requests per token (or per address without one) per 5 minutes. */
  appRateLimitPer5Min: number;
  /** Live event streams (`/events`) one process holds at most; more are refused with 429. */
  liveStreamsMax: number;
  /** Live event streams one user may hold in one process (tabs, devices). */
  liveStreamsPerUser: number;
  /**
   * Handle entries of other nodes kept in the handle registry at most (SWARM_HANDLES_MAX;
   * docs/protocol.md "Registry bounds").
   */
  handlesMax: number;
  /** Largest image upload accepted, in bytes (UPLOAD_MAX_BYTES); larger ones are a 413. */
  uploadMaxBytes: number;
  /** Most pixels (width × height) an uploaded image may have (UPLOAD_MAX_PIXELS). */
  uploadMaxPixels: number;
  /** Bytes one account may store from its uploads of the last 24 hours (UPLOAD_DAILY_BYTES). */
  uploadDailyBytes: number;
  /** Bytes all uploads of the node may take in the media storage (UPLOAD_STORAGE_BYTES). */
  uploadStorageBytes: number;
  /** Uploaded media in S3-compatible object storage; undefined: on disk under `dataDir`. */
  s3: S3Config | undefined;
  /** Stored remote content (docs/architecture.md "Stored remote content"). */
  remoteContent: RemoteContentConfig;
}

/** The crawler's budget and the retention of remote copies (SWARM_CRAWL_*, SWARM_KEEP_*). */
export interface RemoteContentConfig {
  /** Requests per minute the crawler may send to peers' timelines, whatever their number (0: off). */
  crawlPerMinute: number;
  /** Copies of a followed author always kept: their newest this many… */
  keepPerAuthor: number;
  /** …and all of theirs younger than this many days. */
  keepFollowedDays: number;
  /** Days other copies are kept after they were last fetched. */
  keepOtherDays: number;
  /** Remote copies stored at most (the oldest-fetched unprotected go first). */
  maxCopies: number;
}

/** Object storage for uploaded media (S3_* variables; docs/deployment.md "Media storage"). */
export interface S3Config {
  bucket: string;
  region: string;
  /** For S3-compatible services (MinIO, R2, Garage…); undefined: AWS's own endpoint. */
  endpoint: string | undefined;
  /** Both or neither; neither: the SDK's default chain (instance role, AWS_* variables). */
  accessKeyId: string | undefined;
  secretAccessKey: string | undefined;
  /** `bucket` in the path instead of the host name (most self-hosted services need it). */
  forcePathStyle: boolean;
  /** Prepended to every object key (several nodes in one bucket). */
  prefix: string;
}

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

const flag = (name: string) =>
  z
    .enum(['0', '1', 'true', 'false', ''], { error: `${name} must be 1 or 0` })
    .optional()
    .transform((v) => v === '1' || v === 'true');

const integer = (name: string, min: number, max: number, fallback: number) =>
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v.trim() === '') return fallback;
      const n = Number(v);
      if (!/^\d+$/.test(v.trim()) || n < min || n > max) {
        ctx.addIssue({
          code: 'custom',
          message: `${name} must be an integer between ${min} and ${max}`,
        });
        return z.NEVER;
      }
      return n;
    });

const domain = (name: string) =>
  z.string().transform((v, ctx) => {
    const parsed = parseDomain(v.trim());
    if (parsed.ok) return parsed.value;
    ctx.addIssue({
      code: 'custom',
      message: `${name} must be a domain such as social.example.org or localhost:3000 (no scheme, no path): ${parsed.reason}`,
    });
    return z.NEVER;
  });

const envSchema = z.object({
  PORT: integer('PORT', 1, 65535, 3000),
  HOST: z.string().optional(),
  SWARM_DOMAIN: domain('SWARM_DOMAIN').optional(),
  DATABASE_URL: z
    .string()
    .optional()
    .refine(
      (v) => !v || /^(postgres(ql)?:\/\/|pglite:)/.test(v),
      'DATABASE_URL must start with postgres:// or pglite: (leave it unset for the embedded database)',
    ),
  DATA_DIR: z.string().optional(),
  SWARM_SEEDS: z
    .string()
    .optional()
    .transform((v, ctx) => {
      const parsed = (v ?? '')
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
        .map((s) => ({ input: s, result: parseDomain(s) }));
      const bad = parsed.filter((p) => !p.result.ok).map((p) => p.input);
      if (bad.length > 0) {
        ctx.addIssue({
          code: 'custom',
          message: `SWARM_SEEDS must be comma-separated domains (host[:port]); not valid: ${bad.join(', ')}`,
        });
        return z.NEVER;
      }
      return [...new Set(parsed.flatMap((p) => (p.result.ok ? [p.result.value] : [])))];
    }),
  SWARM_DEV: flag('SWARM_DEV'),
  SWARM_GOSSIP_INTERVAL_MS: integer('SWARM_GOSSIP_INTERVAL_MS', 1000, 86_400_000, 60_000),
  SWARM_DRAIN_TIMEOUT_MS: integer('SWARM_DRAIN_TIMEOUT_MS', 0, 600_000, 10_000),
  LOG_LEVEL: z
    .enum(LOG_LEVELS, { error: `LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}` })
    .optional(),
  ADMIN_TOKEN: z
    .string()
    .optional()
    .refine((v) => !v || v.length >= 24, 'ADMIN_TOKEN must be at least 24 characters long'),
  SWARM_NODE_NAME: z.string().max(100, 'SWARM_NODE_NAME must be at most 100 characters').optional(),
  SWARM_NODE_DESCRIPTION: z
    .string()
    .max(1000, 'SWARM_NODE_DESCRIPTION must be at most 1000 characters')
    .optional(),
  SWARM_DEMO_CONTENT: flag('SWARM_DEMO_CONTENT'),
  SWARM_NODE_NSFW: flag('SWARM_NODE_NSFW'),
  SWARM_RATE_LIMIT_PER_MIN: integer('SWARM_RATE_LIMIT_PER_MIN', 1, 1_000_000, 600),
  SWARM_TRUST_PROXY: flag('SWARM_TRUST_PROXY'),
  METRICS_PORT: integer('METRICS_PORT', 1, 65535, -1),
  METRICS_HOST: z.string().optional(),
  SWARM_ORIGIN_COMPAT: z
    .enum(['0', '1', 'true', 'false', ''], { error: 'SWARM_ORIGIN_COMPAT must be 1 or 0' })
    .optional()
    .transform((v) => v !== '0' && v !== 'false'),
  REDIS_URL: z
    .string()
    .optional()
    .refine(
      (v) => !v || /^rediss?:\/\//.test(v),
      'REDIS_URL must start with redis:// or rediss:// (leave it unset to share limits through the database)',
    ),
  SWARM_READ_CACHE_TTL_MS: integer('SWARM_READ_CACHE_TTL_MS', 0, 3_600_000, 1_000),
  SWARM_SIGNUPS_PER_HOUR: integer('SWARM_SIGNUPS_PER_HOUR', 1, 1_000_000, 5),
  SWARM_APP_RATE_LIMIT: integer('SWARM_APP_RATE_LIMIT', 1, 1_000_000, 300),
  SWARM_LIVE_STREAMS_MAX: integer('SWARM_LIVE_STREAMS_MAX', 0, 1_000_000, 5_000),
  SWARM_LIVE_STREAMS_PER_USER: integer('SWARM_LIVE_STREAMS_PER_USER', 1, 1_000, 8),
  SWARM_HANDLES_MAX: integer('SWARM_HANDLES_MAX', 100, 100_000_000, 200_000),
  UPLOAD_MAX_BYTES: integer('UPLOAD_MAX_BYTES', 10_000, 100 * 1024 * 1024, 10 * 1024 * 1024),
  // sharp refuses more than 0x3FFF × 0x3FFF pixels by default; this is the node's own bound.
  UPLOAD_MAX_PIXELS: integer('UPLOAD_MAX_PIXELS', 10_000, 268_402_689, 50_000_000),
  UPLOAD_DAILY_BYTES: integer('UPLOAD_DAILY_BYTES', 10_000, 2 ** 40, 200 * 1024 * 1024),
  UPLOAD_STORAGE_BYTES: integer('UPLOAD_STORAGE_BYTES', 10_000, 2 ** 50, 20 * 1024 ** 3),
  SWARM_CRAWL_PER_MIN: integer('SWARM_CRAWL_PER_MIN', 0, 6_000, 6),
  SWARM_KEEP_FOLLOWED_POSTS: integer('SWARM_KEEP_FOLLOWED_POSTS', 0, 100_000, 200),
  SWARM_KEEP_FOLLOWED_DAYS: integer('SWARM_KEEP_FOLLOWED_DAYS', 1, 36_500, 30),
  SWARM_KEEP_OTHER_DAYS: integer('SWARM_KEEP_OTHER_DAYS', 1, 36_500, 7),
  SWARM_REMOTE_POSTS_MAX: integer('SWARM_REMOTE_POSTS_MAX', 1_000, 1_000_000_000, 200_000),
  S3_BUCKET: z.string().optional(),
  S3_REGION: z.string().optional(),
  S3_ENDPOINT: z
    .string()
    .optional()
    .refine(
      (v) => !v || /^https?:\/\/[^\s]+$/.test(v.trim()),
      'S3_ENDPOINT must be an http(s) URL such as https://s3.example.org',
    ),
  S3_ACCESS_KEY_ID: z.string().optional(),
  S3_SECRET_ACCESS_KEY: z.string().optional(),
  S3_FORCE_PATH_STYLE: flag('S3_FORCE_PATH_STYLE'),
  S3_PREFIX: z
    .string()
    .optional()
    .refine(
      (v) => !v || /^[A-Za-z0-9._/-]{1,200}$/.test(v),
      'S3_PREFIX may hold letters, digits, . _ - and / (at most 200)',
    ),
});

function s3ConfigOf(e: z.output<typeof envSchema>): { value?: S3Config; error?: string } {
  const bucket = e.S3_BUCKET?.trim();
  const accessKeyId = e.S3_ACCESS_KEY_ID?.trim() || undefined;
  const secretAccessKey = e.S3_SECRET_ACCESS_KEY?.trim() || undefined;
  if (!bucket) {
    const stray = (
      ['S3_REGION', 'S3_ENDPOINT', 'S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY', 'S3_PREFIX'] as const
    ).filter((name) => e[name]?.trim());
    return stray.length > 0
      ? { error: `${stray.join(', ')} set without S3_BUCKET: set S3_BUCKET to store media in S3` }
      : {};
  }
  if (!accessKeyId !== !secretAccessKey) {
    return { error: 'S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY go together: set both or neither' };
  }
  return {
    value: {
      bucket,
      region: e.S3_REGION?.trim() || 'us-east-1',
      endpoint: e.S3_ENDPOINT?.trim() || undefined,
      accessKeyId,
      secretAccessKey,
      forcePathStyle: e.S3_FORCE_PATH_STYLE,
      prefix: e.S3_PREFIX ?? '',
    },
  };
}

export type ConfigResult = { ok: true; value: NodeConfig } | { ok: false; errors: string[] };

/** Parses the environment; every problem is reported, each naming its variable. */
export function parseConfig(env: Record<string, string | undefined>): ConfigResult {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    return { ok: false, errors: parsed.error.issues.map((i) => i.message) };
  }
  const e = parsed.data;
  const s3 = s3ConfigOf(e);
  if (s3.error) return { ok: false, errors: [s3.error] };
  const domainValue = e.SWARM_DOMAIN ?? `localhost:${e.PORT}`;
  return {
    ok: true,
    value: {
      port: e.PORT,
      host: e.HOST?.trim() || '0.0.0.0',
      domain: domainValue,
      databaseUrl: e.DATABASE_URL || undefined,
      dataDir: e.DATA_DIR?.trim() || './data',
      seeds: e.SWARM_SEEDS.filter((s) => s !== domainValue),
      dev: e.SWARM_DEV,
      gossipIntervalMs: e.SWARM_GOSSIP_INTERVAL_MS,
      drainTimeoutMs: e.SWARM_DRAIN_TIMEOUT_MS,
      logLevel: e.LOG_LEVEL ?? 'info',
      adminToken: e.ADMIN_TOKEN || undefined,
      nodeName: e.SWARM_NODE_NAME?.trim() || domainValue,
      nodeDescription: e.SWARM_NODE_DESCRIPTION?.trim() ?? '',
      demoContent: e.SWARM_DEMO_CONTENT,
      nodeIsNsfw: e.SWARM_NODE_NSFW,
      rateLimitPerMin: e.SWARM_RATE_LIMIT_PER_MIN,
      trustProxy: e.SWARM_TRUST_PROXY,
      metricsPort: e.METRICS_PORT >= 0 ? e.METRICS_PORT : undefined,
      metricsHost: e.METRICS_HOST?.trim() || '127.0.0.1',
      originCompat: e.SWARM_ORIGIN_COMPAT,
      redisUrl: e.REDIS_URL?.trim() || undefined,
      readCacheTtlMs: e.SWARM_READ_CACHE_TTL_MS,
      signUpLimitPerHour: e.SWARM_SIGNUPS_PER_HOUR,
      appRateLimitPer5Min: e.SWARM_APP_RATE_LIMIT,
      liveStreamsMax: e.SWARM_LIVE_STREAMS_MAX,
      liveStreamsPerUser: e.SWARM_LIVE_STREAMS_PER_USER,
      handlesMax: e.SWARM_HANDLES_MAX,
      uploadMaxBytes: e.UPLOAD_MAX_BYTES,
      uploadMaxPixels: e.UPLOAD_MAX_PIXELS,
      uploadDailyBytes: e.UPLOAD_DAILY_BYTES,
      uploadStorageBytes: e.UPLOAD_STORAGE_BYTES,
      s3: s3.value,
      remoteContent: {
        crawlPerMinute: e.SWARM_CRAWL_PER_MIN,
        keepPerAuthor: e.SWARM_KEEP_FOLLOWED_POSTS,
        keepFollowedDays: e.SWARM_KEEP_FOLLOWED_DAYS,
        keepOtherDays: e.SWARM_KEEP_OTHER_DAYS,
        maxCopies: e.SWARM_REMOTE_POSTS_MAX,
      },
    },
  };
}
