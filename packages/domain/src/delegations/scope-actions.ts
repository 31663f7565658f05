import type { DelegableAction } from '@swarm/contract';

/**
 * The actions a person's OAuth scopes let an app do toward other nodes (docs/protocol.md "App
 * delegations"): posting (with its replies and mentions), deleting and reposting under
 * `write:statuses`, likes under `write:favourites`, follows under `write:follows` or `follow`;
 * `write` is all of them. Reading scopes delegate nothing; direct messages are never delegated.
 */
const BY_SCOPE: Record<string, readonly DelegableAction[]> = {
  'write:statuses': ['post', 'reply', 'mention', 'delete-post', 'repost', 'unrepost'],
  'write:favourites': ['like', 'unlike'],
  'write:follows': ['follow', 'unfollow'],
  follow: ['follow', 'unfollow'],
};
BY_SCOPE.write = [...new Set(Object.values(BY_SCOPE).flat())];

/** In a fixed order, without repeats; empty when the scopes allow no action. */
export function actionsForScopes(scopes: readonly string[]): DelegableAction[] {
  const granted = new Set(scopes.flatMap((scope) => BY_SCOPE[scope] ?? []));
  return (BY_SCOPE.write ?? []).filter((action) => granted.has(action));
}
