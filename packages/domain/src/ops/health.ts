import type { Readiness } from '@swarm/contract';
import { SCHEMA_HEAD, type Db } from '@swarm/db';
import type { Lifecycle } from '../lifecycle.ts';
import { isDatabaseUnavailableError } from './database-errors.ts';
import { DATABASE_UNAVAILABLE, type FailureLog } from './failure-log.ts';
import { migrationStateSql, pingSql } from '../persistence/ops.sql.ts';

type CheckState = Readiness['checks']['database'];

export interface HealthService {
  /** `/readyz`: database answers, migrations applied, not shutting down. */
  readiness(): Promise<Readiness>;
  /**
   * Whether an error means "the database is unreachable": by its codes, or, for an error
   * without a telling code, by a database ping (answered from a 1 s cache).
   */
  isDatabaseUnavailable(error: unknown): Promise<boolean>;
  /** A `SELECT 1` within the timeout (a failure is remembered for 1 s). */
  databaseAnswers(): Promise<boolean>;
}

/** How long a readiness query may take before the database counts as not answering. */
export const READINESS_TIMEOUT_MS = 2_000;
const PING_CACHE_MS = 1_000;

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

export function createHealthService(deps: {
  db: Db;
  lifecycle: Lifecycle;
  failures: FailureLog;
  timeoutMs?: number;
  now?: () => number;
}): HealthService {
  const { db, lifecycle, failures } = deps;
  const timeoutMs = deps.timeoutMs ?? READINESS_TIMEOUT_MS;
  const now = deps.now ?? Date.now;
  let lastPing: { at: number; ok: boolean } | undefined;

  async function migrationState(): Promise<{ head: boolean; failed: number }> {
    const rows = await db.prisma.$queryRaw<{ head: boolean | null; failed: bigint | number }[]>(
      migrationStateSql(SCHEMA_HEAD),
    );
    return { head: rows[0]?.head === true, failed: Number(rows[0]?.failed ?? 0) };
  }

  let inFlight: Promise<boolean> | undefined;

  /**
   * `fresh`: after an error a cached "it answered" proves nothing, so ask again (a cached
   * failure still counts, and concurrent pings share one query).
   */
  async function ping(fresh = false): Promise<boolean> {
    const t = now();
    if (lastPing && t - lastPing.at < PING_CACHE_MS && (!fresh || !lastPing.ok)) {
      return lastPing.ok;
    }
    inFlight ??= withTimeout(db.prisma.$queryRaw(pingSql()), timeoutMs)
      .then(
        () => true,
        () => false,
      )
      .then((ok) => {
        lastPing = { at: now(), ok };
        inFlight = undefined;
        return ok;
      });
    return inFlight;
  }

  return {
    async readiness() {
      const reasons: string[] = [];
      let database: CheckState = 'ok';
      let migrations: CheckState = 'ok';
      try {
        const state = await withTimeout(migrationState(), timeoutMs);
        if (!state.head) {
          migrations = 'failing';
          reasons.push(`migration ${SCHEMA_HEAD} is not applied (run the migrate job)`);
        }
        if (state.failed > 0) {
          migrations = 'failing';
          reasons.push(`${state.failed} migration(s) failed part-way (see docs/database.md)`);
        }
        lastPing = { at: now(), ok: true };
        failures.recovered(DATABASE_UNAVAILABLE);
      } catch (error) {
        // No history table yet: the database answers, but nothing is migrated.
        if (!isDatabaseUnavailableError(error) && (await ping(true))) {
          migrations = 'failing';
          reasons.push('the database has no migration history (run the migrate job)');
        } else {
          database = 'failing';
          migrations = 'failing';
          reasons.push('the database does not answer');
          failures.report(DATABASE_UNAVAILABLE, error, { check: 'readiness' });
        }
      }
      const shutting: CheckState = lifecycle.shuttingDown ? 'failing' : 'ok';
      if (lifecycle.shuttingDown) reasons.push('shutting down');
      const ready = database === 'ok' && migrations === 'ok' && shutting === 'ok';
      return {
        status: ready ? 'ready' : 'not ready',
        checks: { database, migrations, lifecycle: shutting },
        reasons,
      };
    },
    async isDatabaseUnavailable(error) {
      if (isDatabaseUnavailableError(error)) return true;
      return !(await ping(true));
    },
    databaseAnswers: () => ping(true),
  };
}
