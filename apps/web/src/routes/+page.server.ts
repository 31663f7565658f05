import { POST_LIMITS } from '@swarm/contract';
import { failPage, settle } from '$lib/server/content-load';
import { composerAction } from '$lib/server/post-form';
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
  post: (event) => composerAction(event),
};
