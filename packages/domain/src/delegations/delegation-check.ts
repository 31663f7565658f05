import {
  DELEGATION_LIMITS,
  LIMITS,
  SWARM_PATHS,
  delegationSchema,
  delegationStatusSchema,
  err,
  ok,
  parseWith,
  splitUserAddress,
  verifyUserAction,
  type Delegation,
  type Result,
  type UserAction,
} from '@swarm/contract';
import type { Clock } from '../clock.ts';
import { describePeerError, type PeerClient } from '../peers/index.ts';
import { importDidKey } from '../peers/key-cache.ts';

/**
 * A receiver's checks of an action an app signed under a user's delegation (docs/protocol.md
 * "App delegations", "Receiving"). The caller proves the user's did as for their own
 * signatures (pinned, or asked of their node, with the rotation rule) through `signedByUser`;
 * the rest is here: the delegation's shape, its user, its actions, its dates, the app key's
 * signature, and its state as the user's node publishes it (asked at most once per
 * DELEGATION_STATUS_TTL_MS per delegation, on a per-node budget).
 */

/** A revocation is seen within this (the state is cached no longer). */
export const DELEGATION_STATUS_TTL_MS = 5 * 60_000;
/** A failed read of the state is retried after this. */
const STATUS_FAILURE_TTL_MS = 30_000;
/** Delegations whose state is remembered (oldest out first). */
const STATUS_CACHE_MAX = 10_000;
/** State reads per user node per minute (cached answers are free). */
export const STATUS_READS_PER_NODE_PER_MIN = 30;
/** Nodes whose read budget is tracked (oldest out first). */
const BUDGET_NODES_MAX = 2_000;

export type DelegationCheckCode = 'INVALID_SIGNATURE' | 'FORBIDDEN' | 'RATE_LIMITED';
export interface DelegationCheckError {
  code: DelegationCheckCode;
  message: string;
}
const fail = (code: DelegationCheckCode, message: string) =>
  err<DelegationCheckError>({ code, message });

export interface DelegatedInput {
  actor: { handle: string; domain: string };
  action: UserAction;
  /** The domain the app key signed for (the receiver; for a post, the author's node). */
  targetDomain: string;
  rawDelegation: unknown;
  /** The object whose `signature` member the app key made, as received. */
  signedObject: unknown;
}

export interface DelegationChecks {
  /** Everything but the user's did and the state: cheap, no request. */
  precheck(input: DelegatedInput): Promise<Result<Delegation, DelegationCheckError>>;
  /** Whether `did` is the delegation's and signed it (the user action `delegate`). */
  signedByUser(did: string, rawDelegation: unknown, userDomain: string): Promise<boolean>;
  /** The user's node says the delegation holds now (cached, budgeted). */
  holds(userDomain: string, id: string): Promise<Result<void, DelegationCheckError>>;
}

export function createDelegationChecks(deps: {
  peers: Pick<PeerClient, 'getJson'>;
  clock: Clock;
}): DelegationChecks {
  const { peers, clock } = deps;
  const states = new Map<
    string,
    { until: number; answer: Promise<Result<void, DelegationCheckError>> }
  >();
  const budgets = new Map<string, { windowStart: number; reads: number }>();

  async function precheck(
    input: DelegatedInput,
  ): Promise<Result<Delegation, DelegationCheckError>> {
    if (JSON.stringify(input.rawDelegation ?? null).length > LIMITS.interactionBodyBytes) {
      return fail('INVALID_SIGNATURE', 'The delegation is too large.');
    }
    const parsed = parseWith(delegationSchema, input.rawDelegation);
    if (!parsed.ok) {
      return fail('INVALID_SIGNATURE', `The delegation is malformed: ${parsed.reason}.`);
    }
    const delegation = parsed.value;
    const user = splitUserAddress(delegation.user);
    const { actor } = input;
    if (
      !user ||
      user.handle.toLowerCase() !== actor.handle.toLowerCase() ||
      user.domain.toLowerCase() !== actor.domain.toLowerCase()
    ) {
      return fail(
        'INVALID_SIGNATURE',
        `The delegation is ${delegation.user}'s, not ${actor.handle}@${actor.domain}'s.`,
      );
    }
    if (!(delegation.actions as readonly string[]).includes(input.action)) {
      return fail(
        'FORBIDDEN',
        `The delegation to ${delegation.appName} does not allow ${input.action} (it allows ${delegation.actions.join(', ')}).`,
      );
    }
    const now = clock.now().getTime();
    const issued = new Date(delegation.issuedAt).getTime();
    const expires = new Date(delegation.expiresAt).getTime();
    if (issued > now + LIMITS.clockWindowMs || expires <= now) {
      return fail('INVALID_SIGNATURE', `The delegation to ${delegation.appName} has expired.`);
    }
    if (expires - issued > DELEGATION_LIMITS.maxDays * 86_400_000) {
      return fail(
        'INVALID_SIGNATURE',
        `A delegation runs at most ${DELEGATION_LIMITS.maxDays} days; this one runs longer.`,
      );
    }
    const appKey = await importDidKey(delegation.appKey);
    const appSigned =
      appKey.ok &&
      (await verifyUserAction({
        publicKey: appKey.value,
        action: input.action,
        targetDomain: input.targetDomain,
        body: input.signedObject,
      }));
    if (!appSigned) {
      return fail(
        'INVALID_SIGNATURE',
        `The ${input.action} does not match the app key its delegation names.`,
      );
    }
    return ok(delegation);
  }

  async function signedByUser(did: string, rawDelegation: unknown, userDomain: string) {
    const raw = rawDelegation as Record<string, unknown> | null;
    if (!raw || typeof raw !== 'object' || raw.did !== did) return false;
    const key = await importDidKey(did);
    if (!key.ok) return false;
    return verifyUserAction({
      publicKey: key.value,
      action: 'delegate',
      targetDomain: userDomain,
      body: raw,
    });
  }

  function withinBudget(domain: string, now: number): boolean {
    const budget = budgets.get(domain);
    if (!budget || now - budget.windowStart >= 60_000) {
      budgets.delete(domain);
      budgets.set(domain, { windowStart: now, reads: 1 });
      if (budgets.size > BUDGET_NODES_MAX) budgets.delete(budgets.keys().next().value as string);
      return true;
    }
    if (budget.reads >= STATUS_READS_PER_NODE_PER_MIN) return false;
    budget.reads++;
    return true;
  }

  async function read(userDomain: string, id: string): Promise<Result<void, DelegationCheckError>> {
    const answer = await peers.getJson(
      userDomain,
      SWARM_PATHS.delegation(id),
      delegationStatusSchema,
    );
    if (!answer.ok) {
      const reason = answer.reason;
      if (reason.kind === 'http' && reason.status === 404) {
        return fail('INVALID_SIGNATURE', `${userDomain} does not know the delegation ${id}.`);
      }
      return fail(
        'INVALID_SIGNATURE',
        `The delegation's state cannot be read from ${userDomain}: ${describePeerError(reason)}.`,
      );
    }
    if (answer.value.id !== id) {
      return fail('INVALID_SIGNATURE', `${userDomain} answered the state of another delegation.`);
    }
    if (answer.value.state !== 'active') {
      return fail('INVALID_SIGNATURE', `The delegation was ${answer.value.state} by its user.`);
    }
    return ok(undefined);
  }

  async function holds(
    userDomain: string,
    id: string,
  ): Promise<Result<void, DelegationCheckError>> {
    const now = clock.now().getTime();
    const key = `${userDomain.toLowerCase()} ${id}`;
    const cached = states.get(key);
    if (cached && now < cached.until) return cached.answer;
    if (!withinBudget(userDomain.toLowerCase(), now)) {
      return fail(
        'RATE_LIMITED',
        `Too many delegations of ${userDomain} to check now: try again in a minute.`,
      );
    }
    const answer = read(userDomain, id);
    states.delete(key);
    states.set(key, { until: now + DELEGATION_STATUS_TTL_MS, answer });
    if (states.size > STATUS_CACHE_MAX) states.delete(states.keys().next().value as string);
    const settled = await answer;
    // A read that failed (not an answer of the node) is tried again sooner.
    if (!settled.ok && settled.reason.message.includes('cannot be read')) {
      const entry = states.get(key);
      if (entry?.answer === answer) entry.until = now + STATUS_FAILURE_TTL_MS;
    }
    return settled;
  }

  return { precheck, signedByUser, holds };
}
