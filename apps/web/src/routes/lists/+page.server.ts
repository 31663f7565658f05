import { fail } from '@sveltejs/kit';
import { attempt, failPage, loginRedirect } from '$lib/server/content-load';
import { policyOf, textOf as text } from '$lib/server/list-form';
import type { Actions, PageServerLoad } from './$types';

// A person's lists (issue 25): make, rename, delete. Each list's page shows its people and its
// timeline (lists/[id]).

export const load: PageServerLoad = async ({ locals, url }) => {
  if (!locals.user) loginRedirect(url);
  try {
    return { lists: await locals.api.lists.all() };
  } catch (cause) {
    failPage(cause, url);
  }
};

export const actions: Actions = {
  create: async ({ locals, request, url }) => {
    if (!locals.user) loginRedirect(url);
    const form = await request.formData();
    const title = text(form, 'title');
    const done = await attempt(url, () =>
      locals.api.lists.create({
        title,
        repliesPolicy: policyOf(form),
        exclusive: form.get('exclusive') === 'on',
      }),
    );
    if (!done.ok) return fail(done.status, { kind: 'create', title, error: done.message });
    return { kind: 'create', done: `List “${done.value.title}” made.` };
  },

  rename: async ({ locals, request, url }) => {
    if (!locals.user) loginRedirect(url);
    const form = await request.formData();
    const listId = text(form, 'listId');
    const done = await attempt(url, () =>
      locals.api.lists.update({ listId, title: text(form, 'title') }),
    );
    if (!done.ok) return fail(done.status, { kind: 'rename', listId, error: done.message });
    return { kind: 'rename', listId, done: `Renamed to “${done.value.title}”.` };
  },

  delete: async ({ locals, request, url }) => {
    if (!locals.user) loginRedirect(url);
    const form = await request.formData();
    const listId = text(form, 'listId');
    const title = text(form, 'title');
    const done = await attempt(url, () => locals.api.lists.delete({ listId }));
    if (!done.ok) return fail(done.status, { kind: 'delete', listId, error: done.message });
    return { kind: 'delete', done: `List “${title}” deleted.` };
  },
};
