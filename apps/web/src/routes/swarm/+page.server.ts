import { failPage } from '$lib/server/content-load';
import type { PageServerLoad } from './$types';

// The swarm feed is read from this node's database (remote posts are stored ahead of time), so
// the page waits on no peer and is rendered whole.
export const load: PageServerLoad = async ({ locals, url }) => {
  const before = url.searchParams.get('before') ?? undefined;
  try {
    return { feed: await locals.api.timeline.swarm({ before }) };
  } catch (cause) {
    failPage(cause, url);
  }
};
