import { err, formatActorUrl, ok, parseHandleAddress, type Result } from '@swarm/contract';
import type { Db } from '@swarm/db';
import type { Clock } from '../clock.ts';
import { upsertRemoteActor, type Tx } from '../interactions/interaction-effects.ts';
import type { Logger } from '../logger.ts';
import type { PeerClient } from '../peers/index.ts';
import { createUserDids } from '../security/user-dids.ts';

/**
 * The did of a remote user, for checking their signature on a message or a receipt: the same
 * rules as interactions (docs/protocol.md "Interactions", "Key rotation"). The did pinned for
 * `handle@domain` is used when the object's signature verifies under it; otherwise the user's
 * node is asked (at once when nothing is pinned, at most once per user every DID_RECHECK_MS
 * when the pinned did fails), and a did it publishes that verifies the signature is pinned —
 * over the one that failed — when the caller stores the message (`pin`, in its transaction).
 */

export interface DidPin {
  address: string;
  did: string;
  /** The pinned did this one replaces (null: a first pin). */
  replaces: string | null;
}

export interface SenderDids {
  /**
   * `claimed` is the did the object names (senderDid, recipientDid); `verify` checks the
   * object's signature under a did. ok: the did is proved (with a pin to store, or none).
   */
  prove(
    address: string,
    claimed: string,
    verify: (did: string) => Promise<boolean>,
  ): Promise<Result<{ pin: DidPin | undefined }>>;
  /** Stores a proved did inside the caller's transaction (compare-and-set over `replaces`). */
  pin(tx: Tx, pin: DidPin | undefined): Promise<void>;
}

export function createSenderDids(deps: {
  db: Db;
  peers: Pick<PeerClient, 'getJson'>;
  clock: Clock;
  logger: Logger;
}): SenderDids {
  const { db, peers, clock, logger } = deps;
  const prisma = db.prisma;
  const userDids = createUserDids({ peers, clock });

  return {
    async prove(address, claimed, verify) {
      const parsed = parseHandleAddress(address);
      if (!parsed.ok) return err(parsed.reason);
      const { handle, domain } = parsed.value;
      const known = await prisma.remoteActor.findUnique({
        where: { nodeDomain_handle: { nodeDomain: domain, handle } },
        select: { did: true },
      });
      const pinned = known?.did ?? null;
      if (pinned && pinned === claimed && (await verify(pinned))) return ok({ pin: undefined });
      const current = pinned
        ? await userDids.recheck({ handle, domain })
        : await userDids.fetch({ handle, domain });
      if (!current.ok) {
        logger.info({ user: address, reason: current.reason }, 'user key unresolved');
        if (!pinned) return err(`the user signature cannot be checked: ${current.reason}`);
      } else if (
        current.value === claimed &&
        current.value !== pinned &&
        (await verify(current.value))
      ) {
        if (pinned)
          logger.info({ user: address }, 'user did re-pinned: the user rotated their key');
        return ok({ pin: { address, did: current.value, replaces: pinned } });
      }
      return err(`the signature is not by the did known for ${address}`);
    },

    async pin(tx, pin) {
      if (!pin) return;
      const parsed = parseHandleAddress(pin.address);
      if (!parsed.ok) return;
      if (pin.replaces === null) {
        await upsertRemoteActor(
          tx,
          { ...parsed.value, displayName: '', avatarUrl: '', bio: '' },
          { now: clock.now(), didToPin: pin.did },
        );
        return;
      }
      await tx.remoteActor.updateMany({
        where: { actorUrl: formatActorUrl(parsed.value), did: pin.replaces },
        data: { did: pin.did, didPinnedAt: clock.now() },
      });
    },
  };
}
