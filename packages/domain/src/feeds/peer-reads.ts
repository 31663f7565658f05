import type { Result } from '@swarm/contract';
import type { z } from 'zod';
import type { Clock } from '../clock.ts';
import type { Logger } from '../logger.ts';
import { describePeerError, type PeerClient } from '../peers/index.ts';
import { createReadCache } from '../read-cache.ts';

/**
 * Reads from many peers for one page (swarm feed, home timeline): each peer gets a time budget
 * (so one slow node cannot hold the page), answers are cached briefly (a page reload does not
 * ask 100 nodes again), and a per-peer circuit breaker stops asking a node that keeps failing
 * until a cool-down has passed (docs/decisions.md "Swarm feed"). Budget is wall time (the peer
 * client's timeout); cache and breaker run on the node's clock, so tests move them.
 */

export interface PeerReadOptions {
  /** Per-request wall-time budget (ms). */
  budgetMs: number;
  /** How long a successful answer is reused (ms, node clock). */
  cacheTtlMs: number;
  /** Consecutive failures that open a peer's breaker. */
  failureThreshold: number;
  /** How long an open breaker skips the peer before one trial request (ms, node clock). */
  coolDownMs: number;
  /** Cached answers kept at most (LRU). */
  maxEntries: number;
}

export const PEER_READ_DEFAULTS: PeerReadOptions = {
  budgetMs: 1_500,
  cacheTtlMs: 15_000,
  failureThreshold: 3,
  coolDownMs: 60_000,
  maxEntries: 2_000,
};

export type PeerReadOutcome<T> =
  | { domain: string; ok: true; value: T; ms: number; cached: boolean }
  | { domain: string; ok: false; ms: number; error: string; skipped: boolean };

export type BreakerState = 'closed' | 'open' | 'half-open';

export interface PeerReader {
  /** GET `path` on `domain`, through cache and breaker; never throws for peer behaviour. */
  read<S extends z.ZodType>(
    domain: string,
    path: string,
    schema: S,
  ): Promise<PeerReadOutcome<z.output<S>>>;
  breakerState(domain: string): BreakerState;
  /**
   * Drops what is cached from `domain`, and lets no read already under way store its answer:
   * this node just changed something there (a like, a reply), so the next page asks again.
   */
  forget(domain: string): void;
}

interface Breaker {
  failures: number;
  /** Epoch ms (node clock) until which the peer is skipped; null while closed. */
  openUntil: number | null;
  /** A half-open trial request is running: others keep skipping until it ends. */
  trial: boolean;
}

export function createPeerReader(deps: {
  peers: Pick<PeerClient, 'getJson'>;
  clock: Clock;
  logger: Logger;
  options?: Partial<PeerReadOptions>;
}): PeerReader {
  const options = { ...PEER_READ_DEFAULTS, ...deps.options };
  const { peers, clock, logger } = deps;
  const cache = createReadCache<unknown>({
    clock,
    ttlMs: options.cacheTtlMs,
    maxEntries: options.maxEntries,
  });
  const inflight = new Map<string, Promise<PeerReadOutcome<unknown>>>();
  const breakers = new Map<string, Breaker>();
  /** Bumped by `forget`: an answer to a request sent before it is not kept. */
  const epochs = new Map<string, number>();

  const now = () => clock.now().getTime();

  function stateOf(domain: string): BreakerState {
    const breaker = breakers.get(domain);
    if (!breaker || breaker.openUntil === null) return 'closed';
    return now() < breaker.openUntil ? 'open' : 'half-open';
  }

  /** Whether a request may go out now; claims the half-open trial when it is due. */
  function admit(domain: string): Result<void> {
    const breaker = breakers.get(domain);
    if (!breaker || breaker.openUntil === null) return { ok: true, value: undefined };
    const wait = breaker.openUntil - now();
    if (wait > 0) {
      return {
        ok: false,
        reason: `${domain} was skipped: it failed ${breaker.failures} times in a row (next try in ${Math.ceil(wait / 1000)} s).`,
      };
    }
    if (breaker.trial) {
      return { ok: false, reason: `${domain} was skipped: a trial request is under way.` };
    }
    breaker.trial = true;
    return { ok: true, value: undefined };
  }

  function record(domain: string, success: boolean) {
    if (success) {
      breakers.delete(domain);
      return;
    }
    const breaker = breakers.get(domain) ?? { failures: 0, openUntil: null, trial: false };
    const wasTrial = breaker.trial;
    breaker.failures += 1;
    breaker.trial = false;
    if (wasTrial || breaker.failures >= options.failureThreshold) {
      breaker.openUntil = now() + options.coolDownMs;
      if (!wasTrial) logger.info({ peer: domain, failures: breaker.failures }, 'peer breaker open');
    }
    breakers.set(domain, breaker);
  }

  async function fetchOnce<S extends z.ZodType>(
    key: string,
    domain: string,
    path: string,
    schema: S,
  ): Promise<PeerReadOutcome<z.output<S>>> {
    const epoch = epochs.get(domain) ?? 0;
    const result = await peers.getJson(domain, path, schema, { timeoutMs: options.budgetMs });
    if (result.ok) {
      record(domain, true);
      const value = result.value as z.output<S>;
      if (epoch === (epochs.get(domain) ?? 0)) await cache.load(key, () => Promise.resolve(value));
      return { domain, ok: true, value, ms: result.ms, cached: false };
    }
    // A 4xx is an answer about the thing asked for (e.g. no such user), not a sick node.
    const nodeFault =
      result.reason.kind !== 'http' || result.reason.status >= 500 || result.reason.status === 429;
    if (nodeFault) record(domain, false);
    else record(domain, true);
    return {
      domain,
      ok: false,
      ms: result.ms,
      error: describePeerError(result.reason),
      skipped: false,
    };
  }

  return {
    async read(domain, path, schema) {
      const key = `${domain}${path}`;
      const hit = cache.get(key);
      if (hit !== undefined) {
        return { domain, ok: true, value: hit as z.output<typeof schema>, ms: 0, cached: true };
      }
      const running = inflight.get(key);
      if (running) return running as Promise<PeerReadOutcome<z.output<typeof schema>>>;
      const admitted = admit(domain);
      if (!admitted.ok) return { domain, ok: false, ms: 0, error: admitted.reason, skipped: true };
      const promise: Promise<PeerReadOutcome<z.output<typeof schema>>> = fetchOnce(
        key,
        domain,
        path,
        schema,
      ).finally(() => {
        if (inflight.get(key) === promise) inflight.delete(key);
      });
      inflight.set(key, promise);
      return promise;
    },
    breakerState: stateOf,
    forget(domain) {
      const prefix = `${domain}/`;
      epochs.set(domain, (epochs.get(domain) ?? 0) + 1);
      cache.forget((key) => key.startsWith(prefix));
      // A read started after this must not join a request sent before it.
      for (const key of [...inflight.keys()]) if (key.startsWith(prefix)) inflight.delete(key);
    },
  };
}
