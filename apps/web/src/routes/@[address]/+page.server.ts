import { error, fail } from '@sveltejs/kit';
import { attempt, loginRedirect, settle } from '$lib/server/content-load';
import type { Actions, PageServerLoad } from './$types';

export const load: PageServerLoad = async (event) => {
  const { locals, params, url } = event;
  const address = params.address;
  const isRemote = address.includes('@');
  const asked = url.searchParams.get('tab');
  const tab = asked === 'replies' || asked === 'media' ? asked : 'posts';
  const profile = settle(locals.api.profiles.get({ address, tab }), (cause) =>
    locals.node.logger.error({ err: cause, address }, 'profile failed'),
  );
  // Another node's profile is fetched from it: streamed on in-app navigation. Otherwise the
  // answer is awaited and a failure gets its own status (404, 502…) and this route's error page.
  if (isRemote && event.isDataRequest) return { address, tab, profile };
  const answer = await profile;
  if (!answer.ok) {
    if (answer.code === 'UNAUTHORIZED') loginRedirect(url);
    error(answer.status, { message: answer.message, code: answer.code });
  }
  return { address, tab, profile: answer };
};

async function followAction(
  { locals, params, url }: Parameters<Actions[string]>[0],
  following: boolean,
) {
  if (!locals.user) loginRedirect(url);
  const address = params.address ?? '';
  const done = await attempt(url, () =>
    following
      ? locals.api.interactions.follow({ address })
      : locals.api.interactions.unfollow({ address }),
  );
  if (!done.ok) return fail(done.status, { for: 'follow' as const, error: done.message });
  return { for: 'follow' as const, following, delivery: done.value.delivery };
}

export const actions: Actions = {
  follow: (event) => followAction(event, true),
  unfollow: (event) => followAction(event, false),
};
