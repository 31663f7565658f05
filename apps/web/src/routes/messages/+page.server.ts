import { fail, redirect } from '@sveltejs/kit';
import { messageAddress } from '$lib/messages/address';
import { loginPath } from '$lib/next-path';
import type { Actions, PageServerLoad } from './$types';

export const load: PageServerLoad = async ({ locals, url }) => {
  if (!locals.session) redirect(303, loginPath(url));
  const [me, conversations] = await Promise.all([
    locals.api.messages.me(),
    locals.api.messages.conversations(),
  ]);
  return { me, conversations };
};

export const actions: Actions = {
  // "New message": the address typed, checked and written out in full, opens the thread (with
  // or without JavaScript).
  start: async ({ request, locals, url }) => {
    if (!locals.session) redirect(303, loginPath(url));
    const to = String((await request.formData()).get('to') ?? '');
    const { domain } = await locals.api.node.info();
    const address = messageAddress(to, domain);
    if (!address.ok) return fail(400, { to, errors: { to: address.reason } });
    // Addresses are URL-safe as they are (a–z, 0–9, _ . - @ :), like profile paths.
    redirect(303, `/messages/${address.value}`);
  },
};
