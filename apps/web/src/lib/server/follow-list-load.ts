import type { RequestEvent } from '@sveltejs/kit';
import { settle } from './content-load';

/**
 * `/@alice/followers`, `/@bob@beta.example/following`: one page of the list (local from the
 * database, remote from the person's node), paged by `?cursor=`. Failures (no such person, the
 * node down, a bad cursor) come back as values the page explains, with their status.
 */
export async function loadFollowList(
  event: Pick<RequestEvent, 'locals' | 'params' | 'url'>,
  kind: 'followers' | 'following',
) {
  const { locals, url } = event;
  const address = (event.params as { address: string }).address;
  const cursor = url.searchParams.get('cursor') ?? undefined;
  const input = { address, ...(cursor ? { cursor } : {}) };
  const list = await settle(
    kind === 'followers'
      ? locals.api.profiles.followers(input)
      : locals.api.profiles.following(input),
    (cause) => locals.node.logger.error({ err: cause, address }, `${kind} list failed`),
  );
  return { address, kind, list };
}
