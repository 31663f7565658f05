import type { SessionService } from '@swarm/auth';
import { refreshPlannerStatistics } from '@swarm/db';
import type { NodeContext } from '@swarm/domain';

/**
 * Expired sessions are refused when presented anyway; the sweep only keeps the table small.
 * Unattached uploads live a day (UPLOADS.unattachedTtlMs): an hourly sweep removes them within
 * 25 hours. Apps' idempotency keys of posts count for an hour (POST_KEY_TTL_MS) and are removed
 * within two. The first sweep runs a minute after start, so that the embedded database's planner
 * statistics exist soon after a start (they are refreshed with every sweep).
 */
export const HOUSEKEEPING_INTERVAL_MS = 60 * 60 * 1000;
export const HOUSEKEEPING_FIRST_MS = 60 * 1000;

export interface Housekeeping {
  start(): void;
  stop(): Promise<void>;
  /** One sweep now; answers what it removed. */
  runOnce(): Promise<{
    expiredSessions: number;
    uploads: number;
    postKeys: number;
    statistics: boolean;
  }>;
}

/**
 * Periodic clean-up of the node's own tables (runs in the gateway process, next to the swarm
 * scheduler and the delivery worker). Every step is an idempotent DELETE, so replicas sweeping
 * the same database at once do no harm.
 */
export function createHousekeeping(deps: {
  node: Pick<NodeContext, 'db' | 'logger' | 'uploads'> & {
    actions: Pick<NodeContext['actions'], 'postKeys'>;
  };
  /** The node's session service, built once by the entry point. */
  sessions: Pick<SessionService, 'deleteExpired'>;
  intervalMs?: number;
  firstDelayMs?: number;
}): Housekeeping {
  const { node, sessions } = deps;
  let timer: ReturnType<typeof setInterval> | undefined;
  let first: ReturnType<typeof setTimeout> | undefined;
  let inFlight: Promise<unknown> = Promise.resolve();

  async function runOnce() {
    const expiredSessions = await sessions.deleteExpired();
    if (expiredSessions > 0)
      node.logger.info(`housekeeping: removed ${expiredSessions} expired sessions`);
    // Uploads never put into a post after a day, of deleted posts, replaced avatars and headers,
    // deleted accounts: files first, then rows (a failed removal is retried next time).
    const { removed: uploads } = await node.uploads.sweep();
    const postKeys = await node.actions.postKeys.sweep();
    const statistics = await refreshPlannerStatistics(node.db);
    return { expiredSessions, uploads, postKeys, statistics };
  }

  return {
    start() {
      const sweep = () => {
        inFlight = runOnce().catch((err: unknown) =>
          node.logger.error({ err }, 'housekeeping failed'),
        );
      };
      first ??= setTimeout(sweep, deps.firstDelayMs ?? HOUSEKEEPING_FIRST_MS);
      first.unref();
      timer ??= setInterval(sweep, deps.intervalMs ?? HOUSEKEEPING_INTERVAL_MS);
      timer.unref();
    },
    async stop() {
      clearTimeout(first);
      first = undefined;
      clearInterval(timer);
      timer = undefined;
      await inFlight;
    },
    runOnce,
  };
}
