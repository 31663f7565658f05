import {
  encryptionKeySchema,
  importEncryptionPublicKey,
  ok,
  parseWith,
  verifyEncryptionKey,
} from '@swarm/contract';
import { refuse } from '../refusal.ts';
import { createSafetyService } from '../safety/safety.service.ts';
import { checkKeyBackup } from '@swarm/contract';
import type { MessageService } from './message-types.ts';
import type { MessageContext } from './message-support.ts';

// A user's messaging settings: their encryption key (and its backup), blocks, privacy.

export function createMessageSettings(
  ctx: MessageContext,
  me: MessageService['me'],
): Pick<
  MessageService,
  'setEncryptionKey' | 'block' | 'unblock' | 'blocks' | 'privacy' | 'setPrivacy'
> {
  const { prisma, clock, self, addressOf, loadUser } = ctx;

  // The one block list (issue #15): blocking from a conversation is blocking from a profile,
  // with the same rules and bound (the safety service's).
  const safety = createSafetyService({ db: ctx.db, clock, config: { domain: self } });

  return {
    async setEncryptionKey(userId, input) {
      const user = await loadUser(userId);
      if (!user.ok) return user;
      if (!user.value.did)
        return refuse('INVALID_REQUEST', 'Register your signing key before an encryption key.');
      const { encryptedKeyBackup, ...binding } = input;
      const key = parseWith(encryptionKeySchema, binding);
      if (!key.ok)
        return refuse('INVALID_REQUEST', `The encryption key is not valid: ${key.reason}.`);
      if (!(await importEncryptionPublicKey(key.value.publicKey)).ok)
        return refuse('INVALID_REQUEST', 'The encryption key is not a P-256 public key.');
      const bound = await verifyEncryptionKey({
        address: addressOf(user.value),
        did: user.value.did,
        encryptionKey: key.value,
      });
      if (!bound)
        return refuse('INVALID_REQUEST', 'The encryption key is not signed by your signing key.');
      const backup = checkKeyBackup(encryptedKeyBackup, { version: 2 });
      if (!backup.ok) return refuse('INVALID_REQUEST', backup.reason);
      // One UPDATE: the key and the backup that holds its private half change together.
      await prisma.user.update({
        where: { id: userId },
        data: {
          encryptionPublicKey: key.value.publicKey,
          encryptionKeyCreatedAt: new Date(key.value.createdAt),
          encryptionKeySignature: key.value.signature,
          encryptedKeyBackup,
        },
      });
      return me(userId);
    },

    block: (userId, input) => safety.block(userId, input),
    unblock: (userId, input) => safety.unblock(userId, input),
    blocks: (userId) => safety.blocks(userId),

    async privacy(userId) {
      const user = await prisma.user.findUnique({
        where: { id: userId },
        select: { messagePrivacy: true },
      });
      return user?.messagePrivacy ?? 'everyone';
    },

    async setPrivacy(userId, privacy) {
      const { count } = await prisma.user.updateMany({
        where: { id: userId },
        data: { messagePrivacy: privacy },
      });
      return count === 1
        ? ok(privacy)
        : refuse('UNAUTHORIZED', 'Your account does not exist any more: sign in again.');
    },
  };
}
