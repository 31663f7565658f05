import { failPage } from '$lib/server/content-load';
import type { PageServerLoad } from './$types';

// GET /tags/rust: the public posts with #rust that this node holds, its own and the swarm's.
export const load: PageServerLoad = async ({ locals, params, url }) => {
  const before = url.searchParams.get('before') ?? undefined;
  try {
    return { page: await locals.api.search.tag({ tag: params.tag, before }) };
  } catch (cause) {
    failPage(cause, url);
  }
};
