import type { Relationship } from '@swarm/domain';

/** Mastodon's Relationship entity. */
export function relationshipEntity(r: Relationship) {
  return {
    id: r.id,
    following: r.following,
    showing_reblogs: r.following,
    notifying: false,
    languages: null,
    followed_by: r.followedBy,
    blocking: r.blocking,
    blocked_by: r.blockedBy,
    muting: r.muting,
    muting_notifications: r.muting,
    requested: r.requested,
    requested_by: false,
    domain_blocking: r.domainBlocking,
    endorsed: false,
    note: '',
  };
}
