import { redirect } from '@sveltejs/kit';
import { clearSessionCookie } from '$lib/server/session-cookie';
import type { Actions, PageServerLoad } from './$types';

// POST only (the header's "Log out" button): a GET must not end a session, since any page could
// embed a link or image pointing here.
export const load: PageServerLoad = () => redirect(303, '/');

export const actions: Actions = {
  default: async ({ locals, cookies, url }) => {
    await locals.api.auth.logOut();
    clearSessionCookie(cookies, url);
    redirect(303, '/');
  },
};
