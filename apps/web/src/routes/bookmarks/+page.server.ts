import { failPage, loginRedirect } from '$lib/server/content-load';
import type { PageServerLoad } from './$types';

// The viewer's bookmarks (issue 25): private, read from this node's database only.

export const load: PageServerLoad = async ({ locals, url }) => {
  if (!locals.user) loginRedirect(url);
  const before = url.searchParams.get('before') ?? undefined;
  try {
    return { before: before ?? null, bookmarks: await locals.api.bookmarks.list({ before }) };
  } catch (cause) {
    failPage(cause, url);
  }
};
