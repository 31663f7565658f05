import { settle } from '$lib/server/content-load';
import type { PageServerLoad } from './$types';

export const load: PageServerLoad = async (event) => {
  const { locals } = event;
  // Every active peer is asked (with a per-peer budget): streamed on in-app navigation.
  const feed = settle(locals.api.timeline.swarm({}), (cause) =>
    locals.node.logger.error({ err: cause }, 'swarm timeline failed'),
  );
  return { feed: event.isDataRequest ? feed : await feed };
};
