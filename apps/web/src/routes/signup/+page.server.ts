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
const FIELDS = ['handle', 'displayName', 'password'] as const;

export const actions: Actions = {
  default: async ({ request, locals, cookies, url, setHeaders }) => {
    const form = await request.formData();
    const text = (name: string) => String(form.get(name) ?? '');
    const handle = text('handle').trim();
    const displayName = text('displayName');
    // The browser adds its new key (see +page.svelte); without JavaScript there is none, and
    // the account can create one later from /settings.
    const key =
      text('did') && text('publicKey') && text('encryptedBackup')
        ? {
            did: text('did'),
            publicKey: text('publicKey'),
            encryptedBackup: text('encryptedBackup'),
          }
        : null;
    try {
      const signedUp = await locals.api.auth.signUp({
        handle,
        displayName,
        password: text('password'),
        key,
      });
      setSessionCookie(cookies, url, signedUp.token, signedUp.expiresAt);
    } catch (error) {
      const { status, errors } = formErrorsFrom(error, FIELDS);
      const retryAfter = retryAfterOf(error);
      if (retryAfter !== undefined) setHeaders({ 'retry-after': String(retryAfter) });
      return fail(status, { handle, displayName, errors });
    }
    redirect(303, safeNextPath(url.searchParams.get('next')));
  },
};
