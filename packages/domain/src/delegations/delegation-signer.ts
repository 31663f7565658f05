import {
  DELEGABLE_ACTIONS,
  importPrivateKeyPem,
  ok,
  signUserAction,
  type DelegableAction,
} from '@swarm/contract';
import type { Db } from '@swarm/db';
import { refuse } from '../refusal.ts';
import type { DelegationState } from './delegation-state.ts';
import type {
  AppGrant,
  DelegatedBody,
  DelegatedPost,
  DelegationResult,
  PreparedForApp,
  UsableDelegation,
} from './delegation-types.ts';

/**
 * The node signing for an app (docs/protocol.md "App delegations"): what an action prepared
 * (`interactions.prepare`, `posts.prepare`) is signed with the key of the person's delegation to
 * that app, never with the person's own key (which only their browser holds). Refused when the
 * delegation does not cover the action, has ended, or was signed with a key the person has
 * since replaced (receivers would refuse it).
 */
export function createDelegationSigner(deps: { db: Db; state: DelegationState }) {
  const prisma = deps.db.prisma;
  const { state } = deps;

  async function keyOf(
    grant: AppGrant,
    action: string,
  ): DelegationResult<{ usable: UsableDelegation; privateKey: CryptoKey }> {
    if (!(DELEGABLE_ACTIONS as readonly string[]).includes(action)) {
      return refuse('FORBIDDEN', `An app cannot ${action} for you: only your own browser can.`);
    }
    const found = await state.forGrant(grant, action as DelegableAction);
    if (!found.ok) return found;
    const [row, user] = await Promise.all([
      prisma.appDelegation.findUniqueOrThrow({
        where: { id: found.value.id },
        select: { appPrivateKeyPem: true },
      }),
      prisma.user.findUnique({ where: { id: grant.userId }, select: { did: true } }),
    ]);
    if (!user?.did || user.did !== found.value.document.did) {
      return refuse(
        'FORBIDDEN',
        'You replaced your signing key after allowing this app: allow it again to let it act for you.',
      );
    }
    const key = await importPrivateKeyPem(row.appPrivateKeyPem);
    if (!key.ok) return refuse('INTERNAL', `The app key is unreadable: ${key.reason}.`);
    return ok({ usable: found.value, privateKey: key.value });
  }

  /** An interaction body signed with the app key, the delegation inside what is signed. */
  async function signInteraction(
    grant: AppGrant,
    prepared: PreparedForApp,
  ): DelegationResult<DelegatedBody> {
    const found = await keyOf(grant, prepared.action);
    if (!found.ok) return found;
    const { usable, privateKey } = found.value;
    const { signature: _dropped, delegation: _old, ...body } = prepared.body;
    const signature = await signUserAction({
      privateKey,
      action: prepared.action,
      targetDomain: prepared.targetDomain,
      body: { ...body, delegation: usable.document },
    });
    return ok({ body, signature, delegation: usable.document });
  }

  /**
   * A prepared post (`posts.prepare`) signed with the app key: `posts.create` takes it as
   * `signed` and stores the delegation with the post, so every push carries both.
   */
  async function signPost(
    grant: AppGrant,
    prepared:
      PreparedForApp | { action: 'post'; targetDomain: string; body: Record<string, unknown> },
  ): DelegationResult<DelegatedPost> {
    if (prepared.action !== 'post') {
      return refuse('INVALID_REQUEST', 'signPost signs what posts.prepare answered.');
    }
    const found = await keyOf(grant, 'post');
    if (!found.ok) return found;
    const { id, createdAt } = prepared.body;
    if (typeof id !== 'string' || typeof createdAt !== 'string') {
      return refuse('INVALID_REQUEST', 'signPost signs what posts.prepare answered.');
    }
    const signature = await signUserAction({
      privateKey: found.value.privateKey,
      action: 'post',
      targetDomain: prepared.targetDomain,
      body: prepared.body,
    });
    return ok({ id, createdAt, signature, delegationId: found.value.usable.id });
  }

  return { signInteraction, signPost };
}
