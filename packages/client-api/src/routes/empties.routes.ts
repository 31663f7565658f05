import { Hono } from 'hono';
import { requireToken, type BearerEnv } from '../bearer.ts';

/**
 * What apps call at start-up even where the node has no such feature (docs/clients.md): an empty
 * list (or object), never a 404 that some apps take for a broken server. Public ones answer
 * without a token, as Mastodon does; the person's own lists need a token of the right scope.
 */
const PUBLIC_EMPTY_LISTS = [
  '/api/v1/trends',
  '/api/v1/trends/tags',
  '/api/v1/trends/statuses',
  '/api/v1/trends/links',
  '/api/v1/custom_emojis',
  '/api/v1/announcements',
] as const;

/** Each path with the scope Mastodon asks for it. */
const PERSONAL_EMPTY_LISTS: readonly (readonly [string, string])[] = [
  ['/api/v2/suggestions', 'read'],
  ['/api/v1/suggestions', 'read'],
  ['/api/v1/filters', 'read:filters'],
  ['/api/v2/filters', 'read:filters'],
  ['/api/v1/followed_tags', 'read:follows'],
  ['/api/v1/follow_requests', 'read:follows'],
  ['/api/v1/endorsements', 'read:accounts'],
  // Direct messages are end-to-end encrypted in our pages only: apps see none.
  ['/api/v1/conversations', 'read:statuses'],
  ['/api/v1/scheduled_statuses', 'read:statuses'],
  ['/api/v1/domain_blocks', 'read:blocks'],
];

export function emptyRoutes() {
  const app = new Hono<BearerEnv>();
  for (const path of PUBLIC_EMPTY_LISTS) app.get(path, (c) => c.json([]));
  for (const [path, scope] of PERSONAL_EMPTY_LISTS) {
    app.get(path, requireToken([scope], { user: true }), (c) => c.json([]));
  }
  return app;
}
