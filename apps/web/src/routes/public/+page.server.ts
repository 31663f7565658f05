import { failPage } from '$lib/server/content-load';
import type { PageServerLoad } from './$types';

export const load: PageServerLoad = async ({ locals, url }) => {
  const before = url.searchParams.get('before') ?? undefined;
  try {
    return { local: await locals.api.timeline.local({ before }) };
  } catch (cause) {
    failPage(cause, url);
  }
};
