import {
  err,
  isAcceptableInteractionTime,
  ok,
  parseDomain,
  verifyUserAction,
  type Result,
  type UserAction,
} from '@swarm/contract';
import { createBatchedStatement } from '../persistence/batched-statement.ts';
import { interactionLookUpSql } from '../persistence/interactions.sql.ts';
import { importDidKey } from '../peers/key-cache.ts';
import { createUserDids } from '../security/user-dids.ts';
import { createDelegationChecks } from '../delegations/index.ts';
import type { RemoteActorFields } from '../persistence/interactions.sql.ts';
import type {
  InboundInteractionDeps,
  InboundInteractionError,
  InboundInteractionErrorCode,
} from './inbound-types.ts';

// Verification of an inbound interaction, before any write: the actor belongs to the sending
// node, the time is acceptable, the user signature verifies under the actor's pinned did (or a
// did their node now publishes: a key rotation). See inbound-interaction.service.ts.

/**
 * Signature required by the spec's shapes and by our `unrepost` (no node of ours ever sent it
 * unsigned); optional (verified when present) elsewhere.
 */
const SIGNATURE_REQUIRED: ReadonlySet<UserAction> = new Set([
  'like',
  'unlike',
  'repost',
  'unrepost',
]);

/** The acting remote user, as the body describes them. */
export type Actor = RemoteActorFields;

/** A did proved by the request's signature, to store: a first pin, or one replacing `replaces`. */
export interface DidPin {
  did: string;
  replaces: string | null;
}

/** What `admit` checks: who acts, through which node, when, and the body as received. */
export interface AdmitInput {
  action: UserAction;
  sourceDomain: string;
  actor: Actor;
  timestamp: string;
  rawBody: unknown;
  /** The ledger key; the reply has none (its apId plays that part). */
  interactionId?: string;
  /** `origin`: node-signed body, no user signature (its `signature` is the node's). */
  profile?: 'swarm' | 'origin' | undefined;
}

export interface Admitted {
  didToPin: DidPin | undefined;
  seen: boolean;
  /**
   * What vouched for the actor beyond their node: their own key (`user`), an app key under the
   * delegation `delegation` names, nothing (`unsigned`: an optional signature left out), or only
   * the node's body signature of the origin profile (`node`). Logged for follows (operators).
   */
  signedBy: 'user' | 'delegation' | 'unsigned' | 'node';
  delegation?: string;
}

export const fail = (code: InboundInteractionErrorCode, message: string) =>
  err<InboundInteractionError>({ code, message });

export function createInboundVerification(
  deps: Pick<InboundInteractionDeps, 'db' | 'peers' | 'clock' | 'logger' | 'config'>,
) {
  const { db, peers, clock, logger, config } = deps;

  /** The did an actor's node publishes (re-asked at most once per actor per 5 min). */
  const userDids = createUserDids({ peers, clock });

  /** The actor's pinned did, and whether the ledger holds the interaction: one round trip. */
  const lookUp = createBatchedStatement<
    { actor: Actor; interactionId: string | undefined },
    { did: string | null; seen: boolean }
  >({
    db,
    ...interactionLookUpSql,
    row: ({ actor, interactionId }) => ({
      node_domain: actor.domain,
      handle: actor.handle,
      interaction_id: interactionId ?? null,
    }),
    result: (row) => ({ did: (row.did as string | null) ?? null, seen: row.seen === true }),
  });

  /** App-key signatures under a user's delegation (docs/protocol.md "App delegations"). */
  const delegations = createDelegationChecks({ peers, clock });

  /** True when `did` names a key that verifies the user signature. */
  async function signedBy(did: string, action: UserAction, raw: unknown): Promise<boolean> {
    const key = await importDidKey(did);
    if (!key.ok) return false;
    return verifyUserAction({
      publicKey: key.value,
      action,
      targetDomain: config.domain,
      body: raw,
    });
  }

  /**
   * Everything that can refuse an interaction before a write. Returns the did to pin when a
   * valid signature proved one, and `seen` when the interaction is already in the ledger (a
   * repeat: answered without a transaction; false only means "claim it to know").
   */
  async function admit(input: AdmitInput): Promise<Result<Admitted, InboundInteractionError>> {
    const { action, actor } = input;
    const source = parseDomain(input.sourceDomain);
    if (!source.ok || source.value !== actor.domain) {
      return fail(
        'FORBIDDEN',
        `A node may only speak for its own users: ${input.sourceDomain} sent an interaction by a user of ${actor.domain}.`,
      );
    }
    if (!isAcceptableInteractionTime(input.timestamp, clock.now())) {
      return fail(
        'INVALID_SIGNATURE',
        'The interaction timestamp is stale (over 7 days old) or in the future (over 5 minutes ahead).',
      );
    }
    if (input.profile === 'origin') return admitOrigin(input);
    const raw = input.rawBody;
    const signature =
      typeof raw === 'object' && raw !== null && !Array.isArray(raw)
        ? (raw as Record<string, unknown>).signature
        : undefined;
    if (signature === undefined || signature === null) {
      if (SIGNATURE_REQUIRED.has(action)) {
        return fail('INVALID_SIGNATURE', `A ${action} must carry the acting user's signature.`);
      }
      return ok({ didToPin: undefined, seen: false, signedBy: 'unsigned' });
    }
    // An app's signature: the delegation must hold up before its user's did is even looked at,
    // and then the did proves the delegation instead of the body.
    const rawDelegation = (raw as Record<string, unknown>).delegation;
    const delegated = rawDelegation !== undefined;
    if (delegated) {
      const pre = await delegations.precheck({
        actor,
        action,
        targetDomain: config.domain,
        rawDelegation,
        signedObject: raw,
      });
      if (!pre.ok) return fail(pre.reason.code, pre.reason.message);
    }
    const proves = (did: string) =>
      delegated
        ? delegations.signedByUser(did, rawDelegation, actor.domain)
        : signedBy(did, action, raw);
    const proved = await provedDid(input, proves);
    if (!proved.ok || !delegated) return proved;
    const delegation = String((rawDelegation as Record<string, unknown>).id);
    const holds = await delegations.holds(actor.domain, delegation);
    if (!holds.ok) return fail(holds.reason.code, holds.reason.message);
    return ok({ ...proved.value, signedBy: 'delegation', delegation });
  }

  /** The user's did proves the request (pinned, or what their node now publishes). */
  async function provedDid(
    input: AdmitInput,
    proves: (did: string) => Promise<boolean>,
  ): Promise<Result<Admitted, InboundInteractionError>> {
    const { actor } = input;
    const who = `${actor.handle}@${actor.domain}`;
    const { did: pinned, seen } = await lookUp({ actor, interactionId: input.interactionId });
    if (pinned && (await proves(pinned)))
      return ok({ didToPin: undefined, seen, signedBy: 'user' });

    // No did pinned yet (it is pinned on first sight, once a signature proves it), or the pinned
    // one fails: the user may have rotated their key, so ask the actor's node (rate-limited).
    const current = pinned ? await userDids.recheck(actor) : await userDids.fetch(actor);
    if (!current.ok) {
      logger.info({ actor: who, reason: current.reason }, 'user key unresolved');
      if (!pinned) {
        return fail(
          'INVALID_SIGNATURE',
          `The user signature cannot be checked: ${current.reason}.`,
        );
      }
    } else if (current.value !== pinned && (await proves(current.value))) {
      if (pinned) logger.info({ actor: who }, 'user did re-pinned: the user rotated their key');
      return ok({ didToPin: { did: current.value, replaces: pinned }, seen, signedBy: 'user' });
    }
    return fail('INVALID_SIGNATURE', `The user signature does not match ${who}'s key.`);
  }

  /**
   * The origin profile has no user signatures: its node's body signature (verified at the edge)
   * is all there is, for actors whose node never showed us a key of theirs. An actor whose did
   * is pinned here must sign with it whatever the format, and this one cannot carry it
   * (docs/security.md "What each kind of peer can forge"). Dedup by interactionId still applies.
   */
  async function admitOrigin(
    input: AdmitInput,
  ): Promise<Result<Admitted, InboundInteractionError>> {
    const { actor } = input;
    const { did: pinned, seen } = await lookUp({ actor, interactionId: input.interactionId });
    // Origin users' dids (read from their profiles) name no key of ours: nothing to sign with.
    if (pinned && (await importDidKey(pinned)).ok) {
      return fail(
        'INVALID_SIGNATURE',
        `The key of ${actor.handle}@${actor.domain} is pinned here: their ${input.action} must carry their own signature, which the origin profile's format has no place for.`,
      );
    }
    return ok({ didToPin: undefined, seen, signedBy: 'node' });
  }

  return { admit };
}
