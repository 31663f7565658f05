import { error, fail, redirect } from '@sveltejs/kit';
import { parseSwarmPostId } from '@swarm/contract';
import { safeNextPath } from '$lib/next-path';
import { POST_LIMITS } from '@swarm/contract';
import { attempt, loginRedirect, settle } from '$lib/server/content-load';
import { composerAction } from '$lib/server/post-form';
import type { Actions, PageServerLoad, RequestEvent } from './$types';

export const load: PageServerLoad = async (event) => {
  const { locals, params, url } = event;
  const id = params.id;
  const swarmId = parseSwarmPostId(id);
  const domain = swarmId.ok ? swarmId.value.domain : null;
  const thread = settle(locals.api.threads.get({ id }), (cause) =>
    locals.node.logger.error({ err: cause, id }, 'thread failed'),
  );
  const base = { id, domain, maxLength: POST_LIMITS.contentChars };
  // A post on another node is fetched from it: streamed on in-app navigation; otherwise
  // awaited, so a failure gets its status (404, 502…) and this route's error page.
  if (domain && event.isDataRequest) return { ...base, thread };
  const answer = await thread;
  if (!answer.ok) {
    if (answer.code === 'UNAUTHORIZED') loginRedirect(url);
    error(answer.status, { message: answer.message, code: answer.code });
  }
  return { ...base, thread: answer };
};

/**
 * Like, unlike, repost, unrepost, bookmark, unbookmark and delete without JavaScript (the post cards post here from any page,
 * then come back). With JavaScript the cards call tRPC directly: remote posts need the
 * signature only the browser can make.
 */
async function postAction(
  event: RequestEvent,
  run: (api: App.Locals['api'], id: string) => Promise<unknown>,
  fallbackNext: string,
) {
  const { locals, params, request, url } = event;
  if (!locals.user) loginRedirect(url);
  const form = await request.formData();
  const done = await attempt(url, () => run(locals.api, params.id));
  if (!done.ok) {
    const needsSignature = params.id.startsWith('swarm:') && done.code === 'BAD_REQUEST';
    return fail(done.status, {
      for: 'post' as const,
      error: needsSignature
        ? `${done.message} Interactions with posts on other nodes are signed by your browser: turn on JavaScript to do this.`
        : done.message,
    });
  }
  const raw = form.get('next');
  const next = safeNextPath(typeof raw === 'string' ? raw : null, fallbackNext);
  // A deleted post's own page is gone: go home instead.
  const gone = fallbackNext === '/' && new URL(next, url).pathname === url.pathname;
  redirect(303, gone ? '/' : next);
}

export const actions: Actions = {
  reply: (event) => composerAction(event, event.params.id),
  like: (event) =>
    postAction(event, (api, postId) => api.interactions.like({ postId }), event.url.pathname),
  unlike: (event) =>
    postAction(event, (api, postId) => api.interactions.unlike({ postId }), event.url.pathname),
  repost: (event) =>
    postAction(event, (api, postId) => api.interactions.repost({ postId }), event.url.pathname),
  unrepost: (event) =>
    postAction(event, (api, postId) => api.interactions.unrepost({ postId }), event.url.pathname),
  bookmark: (event) =>
    postAction(event, (api, postId) => api.bookmarks.add({ postId }), event.url.pathname),
  unbookmark: (event) =>
    postAction(event, (api, postId) => api.bookmarks.remove({ postId }), event.url.pathname),
  delete: (event) => postAction(event, (api, id) => api.posts.delete({ id }), '/'),
};
