import { fail } from '@sveltejs/kit';
import { attempt, failPage, loginRedirect } from '$lib/server/content-load';
import type { Actions, PageServerLoad } from './$types';

export const load: PageServerLoad = async ({ locals, url }) => {
  if (!locals.user) loginRedirect(url);
  const before = url.searchParams.get('before') ?? undefined;
  try {
    return { before: before ?? null, list: await locals.api.notifications.list({ before }) };
  } catch (cause) {
    failPage(cause, url);
  }
};

export const actions: Actions = {
  markRead: async ({ locals, url }) => {
    if (!locals.user) loginRedirect(url);
    const done = await attempt(url, () => locals.api.notifications.markRead({}));
    if (!done.ok) return fail(done.status, { error: done.message });
    return { marked: true };
  },
};
