import type { z } from 'zod';
import type { Clock } from '../clock.ts';
import type { Logger } from '../logger.ts';
import { describePeerError, isRetryable } from './peer-errors.ts';
import type { PeerClient, PeerResult } from './peer-client.ts';

/**
 * Outbound reads that people cause by opening a page (a remote profile, a remote post), which
 * anyone can do without an account (docs/security.md, "Limits"). Without a gate, 100 views of
 * `/@x@some.host` were 100 requests to some.host, and anyone could make the node knock on any
 * address at will. So:
 *
 * - one request per remote path in flight: concurrent views share it;
 * - failed answers are remembered and served again without asking (anonymous visitors only;
 *   signed-in people ask again, still deduplicated): an answer about the thing (a 404) for
 *   `negativeTtlMs`, a failure that may pass (a timeout, a reset, a 5xx) for `transientTtlMs`,
 *   so one unlucky request does not show every visitor an error for a minute;
 * - anonymous visitors share a budget of requests per remote domain and one in total, per
 *   minute (fixed one-minute windows on the node's clock, per domain from its first request);
 *   beyond it they get "not available right now".
 *
 * The budgets live in this process's memory (like the gateway's rate limits).
 */
export const VISITOR_FETCH = {
  negativeTtlMs: 60_000,
  /** How long a failure that may pass by itself (`isRetryable`) is served again. */
  transientTtlMs: 10_000,
  /** Remembered failures at most (oldest out first). */
  maxNegative: 5_000,
  /** Requests anonymous visitors may cause per remote domain per minute. */
  perDomainPerMinute: 30,
  /** Requests anonymous visitors may cause in total per minute. */
  totalPerMinute: 300,
  /** Domains tracked for the per-domain budget at most. */
  maxDomains: 10_000,
} as const;

export type VisitorFetchOptions = { -readonly [K in keyof typeof VISITOR_FETCH]: number };

/** A gated read: the peer's result, or refused by the visitors' budget (nothing was sent). */
export type GatedResult<T> = PeerResult<T> | { ok: false; limited: true; ms: 0 };

export interface VisitorFetchGate {
  getJson<S extends z.ZodType>(
    domain: string,
    path: string,
    schema: S,
    who: { anonymous: boolean },
  ): Promise<GatedResult<z.output<S>>>;
}

export function createVisitorFetchGate(deps: {
  peers: Pick<PeerClient, 'getJson'>;
  clock: Clock;
  logger: Logger;
  options?: Partial<VisitorFetchOptions>;
}): VisitorFetchGate {
  const { peers, clock, logger } = deps;
  const options = { ...VISITOR_FETCH, ...deps.options };
  const inflight = new Map<string, Promise<PeerResult<unknown>>>();
  /** Failed results by key, with the time (node clock) until which they are served again. */
  const negative = new Map<string, { until: number; result: PeerResult<unknown> }>();
  /** One-minute windows on the node's clock: one for all, one per remote domain. */
  let total = { start: 0, used: 0 };
  const perDomain = new Map<string, { start: number; used: number }>();

  const now = () => clock.now().getTime();

  /** Takes one request from the anonymous budgets; false when spent. */
  function admit(domain: string): boolean {
    const at = now();
    if (at - total.start >= 60_000) total = { start: at, used: 0 };
    let mine = perDomain.get(domain);
    if (!mine || at - mine.start >= 60_000) {
      if (!mine && perDomain.size >= options.maxDomains) {
        for (const [key, window] of perDomain) {
          if (at - window.start >= 60_000) perDomain.delete(key);
        }
        // Still full of busy domains: the per-domain budget is kept by the total one alone.
        if (perDomain.size >= options.maxDomains) perDomain.clear();
      }
      mine = { start: at, used: 0 };
      perDomain.set(domain, mine);
    }
    if (total.used >= options.totalPerMinute || mine.used >= options.perDomainPerMinute) {
      return false;
    }
    total.used++;
    mine.used++;
    return true;
  }

  function remember(key: string, result: Extract<PeerResult<unknown>, { ok: false }>) {
    negative.delete(key);
    if (negative.size >= options.maxNegative) {
      const oldest = negative.keys().next();
      if (!oldest.done) negative.delete(oldest.value);
    }
    const ttl = isRetryable(result.reason) ? options.transientTtlMs : options.negativeTtlMs;
    negative.set(key, { until: now() + ttl, result });
  }

  return {
    async getJson(domain, path, schema, who) {
      const key = `${domain}${path}`;
      if (who.anonymous) {
        const cached = negative.get(key);
        if (cached && cached.until > now()) return cached.result as PeerResult<never>;
        if (cached) negative.delete(key);
      }
      const running = inflight.get(key);
      if (running) return running as Promise<PeerResult<z.output<typeof schema>>>;
      if (who.anonymous && !admit(domain)) {
        logger.info({ peer: domain }, 'outbound read for a visitor refused: budget spent');
        return { ok: false, limited: true, ms: 0 };
      }
      const request = peers
        .getJson(domain, path, schema)
        .then((result) => {
          if (result.ok) negative.delete(key);
          else {
            remember(key, result);
            // The cause stays in the logs; visitors see one sentence for every failure.
            logger.info(
              { peer: domain, path, reason: result.reason.kind },
              describePeerError(result.reason),
            );
          }
          return result;
        })
        .finally(() => {
          if (inflight.get(key) === request) inflight.delete(key);
        });
      inflight.set(key, request);
      return request;
    },
  };
}
