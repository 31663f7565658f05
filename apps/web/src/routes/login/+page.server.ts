import { fail, redirect } from '@sveltejs/kit';
import { retryAfterOf } from '@swarm/api';
import { formErrorsFrom } from '$lib/form-errors';
import { safeNextPath } from '$lib/next-path';
import { setSessionCookie } from '$lib/server/session-cookie';
import type { Actions, PageServerLoad } from './$types';

export const load: PageServerLoad = ({ locals, url }) => {
  if (locals.session) redirect(303, safeNextPath(url.searchParams.get('next')));
};

/** The inputs this form shows errors next to (a refusal's `field`); others go on the form. */
const FIELDS = ['handle', 'password'] as const;

export const actions: Actions = {
  default: async ({ request, locals, cookies, url, setHeaders }) => {
    const form = await request.formData();
    const handle = String(form.get('handle') ?? '').trim();
    const next = safeNextPath(url.searchParams.get('next'));
    let loggedIn;
    try {
      loggedIn = await locals.api.auth.logIn({
        handle,
        password: String(form.get('password') ?? ''),
      });
    } catch (error) {
      // "Wrong handle or password." sits by the password (the service says so); throttling is
      // about the whole form.
      const { status, errors } = formErrorsFrom(error, FIELDS);
      const retryAfter = retryAfterOf(error);
      if (retryAfter !== undefined) setHeaders({ 'retry-after': String(retryAfter) });
      return fail(status, { handle, errors });
    }
    setSessionCookie(cookies, url, loggedIn.token, loggedIn.expiresAt);
    // With JavaScript the page restores the key from the backup before moving on, so it needs
    // the backup as data; without, there is nothing to restore into and it just redirects.
    if (form.get('js') !== '1') redirect(303, next);
    return {
      loggedIn: true as const,
      handle: loggedIn.user.handle,
      keyBackup: loggedIn.keyBackup,
      next,
    };
  },
};
