import { describe, expect, it } from 'vitest';
import { actionsForScopes } from './scope-actions.ts';

describe('the actions a delegation takes from OAuth scopes', () => {
  it('write gives every delegable action; read and push give none', () => {
    expect(actionsForScopes(['read', 'write'])).toEqual([
      'post',
      'reply',
      'mention',
      'delete-post',
      'repost',
      'unrepost',
      'like',
      'unlike',
      'follow',
      'unfollow',
    ]);
    expect(actionsForScopes(['read', 'push', 'read:statuses'])).toEqual([]);
  });

  it('granular scopes give their own actions only, never direct messages', () => {
    expect(actionsForScopes(['write:favourites'])).toEqual(['like', 'unlike']);
    expect(actionsForScopes(['follow'])).toEqual(['follow', 'unfollow']);
    expect(actionsForScopes(['write:follows', 'write:statuses'])).toEqual([
      'post',
      'reply',
      'mention',
      'delete-post',
      'repost',
      'unrepost',
      'follow',
      'unfollow',
    ]);
    expect(actionsForScopes(['write'])).not.toContain('message');
  });
});
