import { formatBytes, ok, type Result } from '@swarm/contract';
import type { NodeConfig } from '../config.ts';
import { advisoryXactLockSql } from '../persistence/ops.sql.ts';
import { refuse, type Refusal, type Tx } from '../refusal.ts';

// The bounds on what uploads may take (docs/security.md "Uploads"): per account, at most
// `maxPending` photos not yet in a post and `UPLOAD_DAILY_BYTES` stored from the uploads of the
// last 24 hours; per node, `UPLOAD_STORAGE_BYTES` in the media storage. They are checked twice:
// before the body is read (a cheap early refusal) and, with the file's real size, in the
// transaction that writes the row, under one node-wide lock, so that uploads running at the same
// time cannot all pass on the same count.

/** Node-wide advisory lock key of upload admissions ("UPLD"). */
const ADMISSION_LOCK_KEY = 0x55504c44;

const DAY_MS = 24 * 60 * 60_000;

/** What the bounds look at, as the database holds it now. */
export interface UploadUsage {
  /** The account's post uploads not yet in a post (nor discarded). */
  pending: number;
  /** Bytes of the account's uploads stored in the last 24 hours. */
  dayBytes: number;
  /** When the oldest of those was stored (null: none). */
  dayOldest: Date | null;
  /** Bytes of every upload the node stores (posted, pending, or discarded and not yet swept). */
  storedBytes: number;
}

export type QuotaConfig = Pick<NodeConfig, 'uploadDailyBytes' | 'uploadStorageBytes'>;

/** The database client or a transaction: what `uploadUsage` reads with. */
type Client = Pick<Tx, 'upload'>;

/** Takes the admission lock: uploads admitted at the same time wait for each other. */
export async function lockAdmissions(tx: Tx): Promise<void> {
  await tx.$queryRaw(advisoryXactLockSql(ADMISSION_LOCK_KEY));
}

export async function uploadUsage(
  client: Client,
  ownerId: string,
  now: Date,
): Promise<UploadUsage> {
  // One statement each, after the lock: under READ COMMITTED each sees what committed before it.
  const pending = await client.upload.count({
    where: { ownerId, purpose: 'post', attachedAt: null, discardedAt: null },
  });
  const day = await client.upload.aggregate({
    where: { ownerId, createdAt: { gt: new Date(now.getTime() - DAY_MS) } },
    _sum: { bytes: true },
    _min: { createdAt: true },
  });
  const stored = await client.upload.aggregate({ _sum: { bytes: true } });
  return {
    pending,
    dayBytes: day._sum.bytes ?? 0,
    dayOldest: day._min.createdAt,
    storedBytes: stored._sum.bytes ?? 0,
  };
}

/**
 * Whether an upload of `bytes` (0: not known yet, before the body is read) may be stored: the
 * refusal when it may not.
 */
export function quotaRefusal(
  usage: UploadUsage,
  upload: { purpose: string; bytes: number; maxPending: number; now: Date },
  config: QuotaConfig,
): Result<void, Refusal> {
  const { purpose, bytes, maxPending, now } = upload;
  if (purpose === 'post' && usage.pending >= maxPending) {
    return refuse(
      'RATE_LIMITED',
      `You have ${usage.pending} photos waiting to be posted; post or remove some first (unused ones go after a day).`,
      { details: { retryAfterSec: 3600, maxPending } },
    );
  }
  const quota = config.uploadDailyBytes;
  if (usage.dayBytes + Math.max(bytes, 1) > quota) {
    // The oldest upload of the window leaves it first; a retry before then is refused again.
    const frees = (usage.dayOldest?.getTime() ?? now.getTime()) + DAY_MS;
    const retryAfterSec = Math.max(1, Math.ceil((frees - now.getTime()) / 1000));
    return refuse(
      'UPLOAD_QUOTA_EXCEEDED',
      `Your uploads of the last 24 hours take ${formatBytes(usage.dayBytes)} of the ` +
        `${formatBytes(quota)} an account may upload in a day` +
        (bytes > 0 ? `; this photo needs ${formatBytes(bytes)}` : '') +
        `. Try again in ${formatDuration(retryAfterSec)}.`,
      { details: { retryAfterSec, usedBytes: usage.dayBytes, quotaBytes: quota } },
    );
  }
  const budget = config.uploadStorageBytes;
  if (usage.storedBytes + Math.max(bytes, 1) > budget) {
    return refuse(
      'STORAGE_FULL',
      `This node's storage for photos is full (${formatBytes(usage.storedBytes)} of ` +
        `${formatBytes(budget)} used)` +
        (bytes > 0 ? ` and has no room for this one (${formatBytes(bytes)})` : '') +
        '. Ask the node’s operator.',
      { details: { usedBytes: usage.storedBytes, budgetBytes: budget } },
    );
  }
  return ok(undefined);
}

function formatDuration(sec: number): string {
  if (sec < 120) return `${sec} s`;
  if (sec < 2 * 3600) return `${Math.round(sec / 60)} min`;
  return `${Math.round(sec / 3600)} h`;
}
