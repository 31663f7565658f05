import { ok, refuse, type Refusal, type Result } from '@swarm/contract';
import type { Db } from '@swarm/db';
import {
  checkBackup,
  checkKey,
  checkPassword,
  invalid,
  keyTaken,
  notFound,
  uniqueViolation,
  type KeyInput,
} from './account-checks.ts';
import type { LoginThrottle } from './log-in.ts';
import { hashPassword, verifyPassword } from './password.ts';
import type { KeyBackup } from './types.ts';

// A signed-in user's credentials: the password (changed, or confirmed before something
// irreversible) and the signing key with its password-encrypted backup (docs/security.md, "Who
// holds what").

export interface AccountCredentials {
  /** Verifies the current password, stores the new one, ends the user's other sessions. */
  changePassword(
    caller: { userId: string; sessionId: string },
    input: { currentPassword: string; newPassword: string; encryptedBackup?: string | null },
  ): Promise<Result<{ endedSessions: number }, Refusal>>;
  /**
   * Only when the account has no key yet, or the same key (then the backup is replaced). The
   * password is checked because the browser encrypted the backup with it: a mistyped one would
   * leave a backup nobody can restore.
   */
  registerKey(
    userId: string,
    key: KeyInput & { currentPassword: string },
  ): Promise<Result<KeyBackup, Refusal>>;
  keyBackup(userId: string): Promise<KeyBackup | null>;
  /** The password again, before something irreversible (deleting the account); throttled like logins. */
  confirmPassword(userId: string, password: string): Promise<Result<void, Refusal>>;
}

export function credentialsService(deps: { db: Db; throttle: LoginThrottle }): AccountCredentials {
  const { prisma } = deps.db;
  const { throttle } = deps;

  /** The owner's password, `field` of the input; a right one refills the handle's login budget. */
  async function confirmOwner(
    userId: string,
    password: string,
    field: string,
  ): Promise<Result<void, Refusal>> {
    const owner = await prisma.user.findUnique({
      where: { id: userId },
      select: { handle: true, passwordHash: true },
    });
    if (!owner) return notFound();
    const throttled = await throttle.take({ handle: owner.handle });
    if (!throttled.ok) return throttled;
    if (!(await verifyPassword(owner.passwordHash, String(password ?? '')))) {
      return refuse('UNAUTHORIZED', 'The password is wrong.', { field });
    }
    await throttle.reset(owner.handle);
    return ok(undefined);
  }

  return {
    async changePassword(caller, input) {
      const badPassword = checkPassword(input.newPassword, 'The new password', 'newPassword');
      if (!badPassword.ok) return badPassword;
      const user = await prisma.user.findUnique({
        where: { id: caller.userId },
        select: { handle: true, passwordHash: true, did: true },
      });
      if (!user) return notFound();
      // The key backup is encrypted with the password: changing one without the other would
      // lock the key out of every other browser, so a user with a key must send both.
      if (user.did && input.encryptedBackup == null) {
        return invalid(
          'encryptedBackup',
          'Changing the password needs your key backup re-encrypted with the new password; your browser does this, so JavaScript is required.',
        );
      }
      if (input.encryptedBackup != null) {
        if (!user.did)
          return invalid('encryptedBackup', 'Register a key before uploading its backup.');
        const badBackup = checkBackup(input.encryptedBackup);
        if (!badBackup.ok) return badBackup;
      }
      // Same budget as logins: a stolen session must not become a password-guessing oracle.
      const throttled = await throttle.take({ handle: user.handle });
      if (!throttled.ok) return throttled;
      if (!(await verifyPassword(user.passwordHash, String(input.currentPassword ?? '')))) {
        return refuse('UNAUTHORIZED', 'The current password is wrong.', {
          field: 'currentPassword',
        });
      }
      const passwordHash = await hashPassword(input.newPassword);
      const ended = await prisma.$transaction(async (tx) => {
        await tx.user.update({
          where: { id: caller.userId },
          data: {
            passwordHash,
            ...(input.encryptedBackup != null ? { encryptedKeyBackup: input.encryptedBackup } : {}),
          },
        });
        return tx.session.deleteMany({
          where: { userId: caller.userId, id: { not: caller.sessionId } },
        });
      });
      return ok({ endedSessions: ended.count });
    },

    confirmPassword: (userId, password) => confirmOwner(userId, password, 'password'),

    async registerKey(userId, input) {
      const key = await checkKey(input);
      if (!key.ok) return key;
      const confirmed = await confirmOwner(userId, input.currentPassword, 'currentPassword');
      if (!confirmed.ok) return confirmed;
      try {
        // Conditional update: two browsers racing to register different keys cannot both win.
        const updated = await prisma.user.updateMany({
          where: { id: userId, OR: [{ did: null }, { did: key.value.did }] },
          data: {
            did: key.value.did,
            publicKey: key.value.publicKey,
            encryptedKeyBackup: key.value.encryptedBackup,
          },
        });
        if (updated.count === 0) {
          const exists = await prisma.user.count({ where: { id: userId } });
          if (exists === 0) return notFound();
          return refuse('KEY_CONFLICT', 'A different key is already registered for this account.', {
            field: 'did',
          });
        }
      } catch (error) {
        if (uniqueViolation(error) === 'did') return keyTaken();
        throw error;
      }
      return ok({
        did: key.value.did,
        publicKey: key.value.publicKey,
        encryptedBackup: key.value.encryptedBackup,
      });
    },

    async keyBackup(userId) {
      const row = await prisma.user.findUnique({
        where: { id: userId },
        select: { did: true, publicKey: true, encryptedKeyBackup: true },
      });
      if (!row?.did || !row.publicKey || !row.encryptedKeyBackup) return null;
      return { did: row.did, publicKey: row.publicKey, encryptedBackup: row.encryptedKeyBackup };
    },
  };
}
