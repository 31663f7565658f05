import {
  hashInviteCode,
  ok,
  refuse,
  REGISTRATION_MODE_KEY,
  REGISTRATION_MODES,
  type Refusal,
  type RegistrationMode,
  type Result,
} from '@swarm/contract';
import type { Prisma } from '@swarm/db';

/**
 * The sign-up side of the node's registrations mode (issue #15; the operator side is the
 * domain's moderation/registrations.service.ts): inside the sign-up's transaction, whether it
 * may go ahead and whether it waits for approval. An invite is used up atomically.
 */

export const SIGNUP_REASON_MAX = 1000;

/** Whether the account waits for approval, and why its owner wants to join; or why not. */
export type Admission = Result<{ pending: boolean; reason: string | null }, Refusal<'FORBIDDEN'>>;

export async function admitSignUp(
  tx: Prisma.TransactionClient,
  input: { isFirst: boolean; invite?: string | null; reason?: string | null; now: Date },
): Promise<Admission> {
  if (input.isFirst) return ok({ pending: false, reason: null });
  const row = await tx.nodeSetting.findUnique({ where: { key: REGISTRATION_MODE_KEY } });
  const stored = row?.value as RegistrationMode | undefined;
  const mode = stored && REGISTRATION_MODES.includes(stored) ? stored : 'open';
  if (mode === 'open') return ok({ pending: false, reason: null });
  if (mode === 'approval') {
    const reason = (input.reason ?? '').trim();
    if (reason === '') {
      return refuse('FORBIDDEN', 'Sign-ups on this node need approval: say why you want to join.', {
        field: 'reason',
      });
    }
    if (reason.length > SIGNUP_REASON_MAX) {
      return refuse('FORBIDDEN', `The reason may have at most ${SIGNUP_REASON_MAX} characters.`, {
        field: 'reason',
      });
    }
    return ok({ pending: true, reason });
  }
  const code = (input.invite ?? '').trim();
  if (code === '') {
    return refuse('FORBIDDEN', 'This node is closed to sign-ups: you need an invite link.', {
      field: 'invite',
    });
  }
  // One conditional update: a concurrent sign-up cannot take the last use too.
  const { count } = await tx.invite.updateMany({
    where: {
      codeHash: await hashInviteCode(code),
      revokedAt: null,
      uses: { lt: tx.invite.fields.maxUses },
      OR: [{ expiresAt: null }, { expiresAt: { gt: input.now } }],
    },
    data: { uses: { increment: 1 } },
  });
  if (count !== 1) {
    return refuse('FORBIDDEN', 'This invite link is not valid any more.', { field: 'invite' });
  }
  return ok({ pending: false, reason: null });
}
