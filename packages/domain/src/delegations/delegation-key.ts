import {
  canonicalJson,
  didKeyToPublicKey,
  ok,
  type DelegableAction,
  type Delegation,
  type Result,
} from '@swarm/contract';
import { refuse, type Refusal } from '../refusal.ts';
import type { AppDelegations } from './app-delegations.service.ts';

/**
 * The app key that may sign `action` for a user of this node under `delegation`, checked
 * against this node's own record (usable now, the very document stored, signed with the
 * user's current did), never against the body's copy alone: what a sender checks before it
 * queues an app-signed interaction or deletion.
 */
export async function delegatedAppKey(
  delegations: Pick<AppDelegations, 'usable'> | undefined,
  user: { id: string; did: string },
  action: DelegableAction,
  delegation: Delegation,
): Promise<Result<CryptoKey, Refusal>> {
  if (!delegations) return refuse('FORBIDDEN', 'This node does not sign for apps.');
  const usable = await delegations.usable(user.id, delegation.id, action);
  if (!usable.ok) return usable;
  if (
    canonicalJson(usable.value.document) !== canonicalJson(delegation) ||
    delegation.did !== user.did
  ) {
    return refuse('INVALID_REQUEST', `The ${action} carries another delegation than yours.`);
  }
  const key = await didKeyToPublicKey(usable.value.appKeyDid);
  return key.ok ? ok(key.value) : refuse('INTERNAL', `The app key is unusable: ${key.reason}.`);
}
