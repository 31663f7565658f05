import { error, type RequestEvent } from '@sveltejs/kit';
import { settle } from './content-load';

/**
 * `/@alice/followers`, `/@bob@beta.example/following`: one page of the list (local from the
 * database, remote from the person's node), paged by `?cursor=`. Failures (no such person, the
 * node down, a bad cursor) come back as values the page explains, with their status; any other
 * refusal below 500 (e.g. a blocked viewer) is the error page with that status.
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
  if (!list.ok && list.status < 500 && list.status !== 404 && list.status !== 400) {
    error(list.status, { message: list.message, code: list.code });
  }
  return { address, kind, list };
}
