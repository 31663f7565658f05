// Actor keys of likes, reposts, follows and notifications (see prisma/schema.prisma): a local
// user's key is `local:<userId>`; a remote actor's key is its actor URL `swarm://{domain}/{handle}`
// (formatActorUrl in @swarm/contract). The database checks that a local key matches its user id
// and that a remote key starts with `swarm://`.

/** `local:<userId>`: the actor key of a local user. */
export function localActorKey(userId: string): string {
  return `local:${userId}`;
}
