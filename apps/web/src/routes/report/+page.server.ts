import { fail, redirect } from '@sveltejs/kit';
import { TRPCError } from '@trpc/server';
import { getHTTPStatusCodeFromError } from '@trpc/server/http';
import { REPORT_CATEGORIES } from '@swarm/contract';
import { loginPath } from '$lib/next-path';
import type { Actions, PageServerLoad } from './$types';

// Report a post (`?post=<id>`) or a person (`?person=<address>`) to this node's moderators
// (issue #15); a remote one is also forwarded to its node unless the reporter says not to.

export const load: PageServerLoad = ({ locals, url }) => {
  if (!locals.session) redirect(303, loginPath(url));
  return {
    post: (url.searchParams.get('post') ?? '').slice(0, 600),
    person: (url.searchParams.get('person') ?? '').slice(0, 320),
    categories: REPORT_CATEGORIES,
  };
};

export const actions: Actions = {
  default: async ({ request, locals, url }) => {
    if (!locals.session) redirect(303, loginPath(url));
    const form = await request.formData();
    const text = (name: string) => String(form.get(name) ?? '').trim();
    const values = {
      postId: text('post') || undefined,
      target: text('person') || undefined,
      category: text('category') as (typeof REPORT_CATEGORIES)[number],
      comment: text('comment'),
      forward: form.get('forward') === 'on',
    };
    try {
      const filed = await locals.api.moderation.report(values);
      return { filed };
    } catch (error) {
      if (!(error instanceof TRPCError)) throw error;
      return fail(getHTTPStatusCodeFromError(error), {
        error: error.message,
        comment: values.comment,
      });
    }
  },
};
