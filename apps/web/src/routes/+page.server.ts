import { fail } from '@sveltejs/kit';
import { POST_LIMITS } from '@swarm/domain';
import { attempt, failPage, loginRedirect, settle } from '$lib/server/content-load';
import { readPostForm } from '$lib/server/post-form';
import type { Actions, PageServerLoad } from './$types';

export const load: PageServerLoad = async (event) => {
  const { locals, url } = event;
  const before = url.searchParams.get('before') ?? undefined;
  if (!locals.user) {
    // Signed out: a welcome, and this node's public timeline to show what happens here.
    try {
      return { signedIn: false as const, local: await locals.api.timeline.local({ before }) };
    } catch (cause) {
      failPage(cause, url);
    }
  }
  // The home timeline may wait on other nodes: streamed on in-app navigation.
  const home = settle(locals.api.timeline.home({ before }), (cause) =>
    locals.node.logger.error({ err: cause }, 'home timeline failed'),
  );
  return {
    signedIn: true as const,
    home: event.isDataRequest ? home : await home,
    maxLength: POST_LIMITS.contentChars,
  };
};

export const actions: Actions = {
  post: async ({ request, locals, url }) => {
    if (!locals.user) loginRedirect(url);
    const { replyToId: _ignored, ...input } = readPostForm(await request.formData());
    const created = await attempt(url, () => locals.api.posts.create(input));
    if (!created.ok) {
      return fail(created.status, { for: 'composer' as const, error: created.message, input });
    }
    return {
      for: 'composer' as const,
      posted: { path: created.value.post.path },
      deliveries: created.value.deliveries,
    };
  },
};
