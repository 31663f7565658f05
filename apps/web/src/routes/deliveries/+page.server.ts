import { fail } from '@sveltejs/kit';
import { attempt, failPage, loginRedirect } from '$lib/server/content-load';
import type { Actions, PageServerLoad } from './$types';

export const load: PageServerLoad = async ({ locals, url }) => {
  if (!locals.user) loginRedirect(url);
  try {
    return { deliveries: await locals.api.deliveries.mine({ limit: 50 }) };
  } catch (cause) {
    failPage(cause, url);
  }
};

export const actions: Actions = {
  /** "Retry now" on one of the user's own pending or failed deliveries. */
  retry: async ({ locals, url, request }) => {
    if (!locals.user) loginRedirect(url);
    const raw = (await request.formData()).get('id');
    const id = typeof raw === 'string' ? raw : '';
    const done = await attempt(url, () => locals.api.deliveries.retry({ id }));
    if (!done.ok) return fail(done.status, { id, error: done.message });
    return { id, delivery: done.value };
  },
};
