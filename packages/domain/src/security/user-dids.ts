import {
  SWARM_PATHS,
  err,
  formatActorUrl,
  ok,
  swarmUserResponseSchema,
  type Result,
} from '@swarm/contract';
import type { Clock } from '../clock.ts';
import { describePeerError, type PeerClient } from '../peers/index.ts';

/** After a pinned did fails, the user's node is asked again at most this often per user. */
export const DID_RECHECK_MS = 5 * 60_000;
/** Users remembered for that (oldest out first). */
const DID_RECHECK_MAX = 10_000;

/** A remote user, as `handle` on `domain`. */
export interface UserRef {
  handle: string;
  domain: string;
}

/**
 * Asking a user's node which did it publishes (`GET /api/swarm/users/<handle>?limit=0`), for
 * checking user signatures on interactions, messages and receipts (docs/protocol.md "Key
 * rotation"). `fetch` asks now (nothing pinned yet); `recheck` asks at most once per user per
 * DID_RECHECK_MS and otherwise answers what the last ask said: a pinned did that fails may mean
 * the user rotated their key, but forged signatures must not make us hammer their node.
 */
export interface UserDids {
  fetch(user: UserRef): Promise<Result<string>>;
  recheck(user: UserRef): Promise<Result<string>>;
}

export function createUserDids(deps: {
  peers: Pick<PeerClient, 'getJson'>;
  clock: Clock;
}): UserDids {
  const { peers, clock } = deps;
  const rechecked = new Map<string, { at: number; did: Promise<Result<string>> }>();

  async function fetch(user: UserRef): Promise<Result<string>> {
    const answer = await peers.getJson(
      user.domain,
      `${SWARM_PATHS.user(user.handle)}?limit=0`,
      swarmUserResponseSchema,
    );
    if (!answer.ok)
      return err(`cannot resolve the user's key: ${describePeerError(answer.reason)}`);
    const did = answer.value.profile.did;
    return did ? ok(did) : err(`${user.handle}@${user.domain} publishes no did`);
  }

  return {
    fetch,
    recheck(user) {
      const key = formatActorUrl(user);
      const nowMs = clock.now().getTime();
      const entry = rechecked.get(key);
      if (entry && nowMs - entry.at < DID_RECHECK_MS) return entry.did;
      const did = fetch(user);
      rechecked.delete(key);
      rechecked.set(key, { at: nowMs, did });
      // Oldest out first (a Map iterates in insertion order).
      if (rechecked.size > DID_RECHECK_MAX)
        rechecked.delete(rechecked.keys().next().value as string);
      return did;
    },
  };
}
