import type { Db } from '@swarm/db';
import type { Clock } from '../clock.ts';
import { createDelegationGrant } from './delegation-grant.ts';
import { createDelegationSigner } from './delegation-signer.ts';
import { createDelegationState } from './delegation-state.ts';

/**
 * App keys the person signs (docs/protocol.md "App delegations"; docs/security.md "App
 * keys"): consent makes a key per grant and keeps the delegation the person's browser signed;
 * the client API has the app's actions signed with that key; the delegation's state is
 * published to receivers. Direct messages are never delegated.
 */
export function createAppDelegations(deps: { db: Db; clock: Clock; self: string }) {
  const state = createDelegationState(deps);
  const grant = createDelegationGrant(deps);
  const signer = createDelegationSigner({ db: deps.db, state });
  return {
    /** Consent: the delegation to sign for an app's scopes (null when they delegate nothing). */
    prepare: grant.prepare,
    /** Consent: the person's signature of what `prepare` answered, checked and kept. */
    confirm: grant.confirm,
    /** Sign a prepared interaction (like, unlike, repost, unrepost, follow, unfollow) for an app. */
    signInteraction: signer.signInteraction,
    /** Sign a prepared post (`posts.prepare`) for an app. */
    signPost: signer.signPost,
    /** What `GET /api/swarm/delegations/{id}` answers (null: 404). */
    status: state.status,
    /** The usable delegation of the person's by id, for an action now. */
    usable: state.byId,
    /** Ends every delegation of a grant (the app was revoked). */
    revoke: state.revoke,
  };
}

export type AppDelegations = ReturnType<typeof createAppDelegations>;
