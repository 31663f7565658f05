import { fail } from '@sveltejs/kit';
import { attempt, failPage, loginRedirect } from '$lib/server/content-load';
import { policyOf, textOf } from '$lib/server/list-form';
import type { Actions, PageServerLoad } from './$types';

// One list (issue 25): its timeline (from this node's database only), its people (add someone
// you follow, take someone off) and its settings.

export const load: PageServerLoad = async ({ locals, params, url }) => {
  if (!locals.user) loginRedirect(url);
  const before = url.searchParams.get('before') ?? undefined;
  const listId = params.id;
  try {
    const [list, members, timeline, following] = await Promise.all([
      locals.api.lists.get({ listId }),
      locals.api.lists.members({ listId }),
      locals.api.lists.timeline({ listId, before }),
      // Suggestions for the add field (typing any address you follow works too).
      locals.api.profiles
        .following({ address: locals.user.handle, limit: 100 })
        .then((page) => page.people.map((p) => p.address))
        .catch(() => [] as string[]),
    ]);
    return { list, members, timeline, following, before: before ?? null };
  } catch (cause) {
    failPage(cause, url);
  }
};

export const actions: Actions = {
  add: async ({ locals, params, request, url }) => {
    if (!locals.user) loginRedirect(url);
    const address = textOf(await request.formData(), 'address').trim();
    const done = await attempt(url, () =>
      locals.api.lists.addMembers({ listId: params.id, members: [{ address }] }),
    );
    if (!done.ok) return fail(done.status, { kind: 'add', address, error: done.message });
    const added = done.value[0]?.actor.address ?? address;
    return { kind: 'add', done: `@${added} added.` };
  },

  remove: async ({ locals, params, request, url }) => {
    if (!locals.user) loginRedirect(url);
    const form = await request.formData();
    const accountId = textOf(form, 'accountId');
    const done = await attempt(url, () =>
      locals.api.lists.removeMembers({ listId: params.id, members: [{ accountId }] }),
    );
    if (!done.ok) return fail(done.status, { kind: 'remove', error: done.message });
    return { kind: 'remove', done: `@${textOf(form, 'address')} taken off the list.` };
  },

  settings: async ({ locals, params, request, url }) => {
    if (!locals.user) loginRedirect(url);
    const form = await request.formData();
    const done = await attempt(url, () =>
      locals.api.lists.update({
        listId: params.id,
        title: textOf(form, 'title'),
        repliesPolicy: policyOf(form),
        exclusive: form.get('exclusive') === 'on',
      }),
    );
    if (!done.ok) return fail(done.status, { kind: 'settings', error: done.message });
    return { kind: 'settings', done: 'Saved.' };
  },
};
