import { isHttpUrl, type Result } from '@swarm/contract';
import { localActorKey, type Db } from '@swarm/db';
import type { AppDelegations } from '../delegations/index.ts';
import type { DeliveryService } from '../delivery/index.ts';
import type { EffectActor } from '../interactions/interaction-effects.ts';
import { refuse, type Refusal } from '../refusal.ts';
import type { PeerReader } from '../feeds/peer-reads.ts';
import type { SeenPosts } from '../feeds/seen-posts.ts';
import type { UploadService } from '../media/upload.service.ts';
import type { PeerServiceDeps } from '../peers/service-deps.ts';

export interface ActionDeps extends PeerServiceDeps {
  delivery: DeliveryService;
  /** Photos uploaded here: a post takes them, a deletion discards them (issue #14). */
  uploads?: Pick<UploadService, 'attachToPost' | 'discardForPost' | 'sweepSoon' | 'peek'>;
  /**
   * The reads' memory: remote posts just shown (a first action on one whose node is down uses
   * them), and the peer-read cache, dropped for a peer once something changed there.
   */
  reads?: { seen: Pick<SeenPosts, 'lookup'>; reader: Pick<PeerReader, 'forget'> };
  /** App delegations (docs/protocol.md "App delegations"): without it, app-signed bodies are refused. */
  delegations?: Pick<AppDelegations, 'usable'>;
}

/** The acting user, fresh from the database (the session's copy may be minutes old). */
export interface ActingUser {
  id: string;
  handle: string;
  displayName: string;
  avatarUrl: string | null;
  bio: string;
  did: string | null;
  showNsfw: boolean;
}

export async function loadActingUser(db: Db, userId: string): Promise<Result<ActingUser, Refusal>> {
  const user = await db.prisma.user.findUnique({
    where: { id: userId },
    select: {
      id: true,
      handle: true,
      displayName: true,
      avatarUrl: true,
      bio: true,
      did: true,
      showNsfw: true,
    },
  });
  return user
    ? { ok: true, value: user }
    : refuse('UNAUTHORIZED', 'Your account does not exist any more: sign in again.');
}

export function localEffectActor(user: ActingUser): Extract<EffectActor, { kind: 'local' }> {
  return {
    kind: 'local',
    userId: user.id,
    handle: user.handle,
    displayName: user.displayName,
    avatarUrl: user.avatarUrl,
  };
}

export const localKey = (user: { id: string }) => localActorKey(user.id);

/**
 * The actor fields of an interaction body, as this node describes its user to peers.
 * `actorAvatarUrl` is absent when the user has none (see `wireUrlMember`).
 */
export function actorFields(
  user: ActingUser,
  self: string,
): {
  actorHandle: string;
  actorDisplayName: string;
  actorAvatarUrl?: string;
  actorNodeDomain: string;
} {
  return {
    actorHandle: user.handle,
    actorDisplayName: user.displayName,
    ...wireUrlMember('actorAvatarUrl', user.avatarUrl),
    actorNodeDomain: self,
  };
}

/** A URL as wire shapes carry it: absolute http(s), or '' (what the contract's readers make of anything else). */
export function wireUrl(value: string | null): string {
  return value && isHttpUrl(value) ? value : '';
}

/**
 * An optional URL member of a body we send: `{ [name]: url }` when the URL is usable, `{}`
 * otherwise. Never `""`: the origin refuses empty and relative URLs (docs/origin-profile.md §3),
 * the spec says nothing of required members, and our readers take absence as "none".
 */
export function wireUrlMember<K extends string>(
  name: K,
  value: string | null,
): Partial<Record<K, string>> {
  const url = wireUrl(value);
  return (url ? { [name]: url } : {}) as Partial<Record<K, string>>;
}
