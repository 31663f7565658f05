import { fail, redirect } from '@sveltejs/kit';
import { TRPCError } from '@trpc/server';
import { getHTTPStatusCodeFromError } from '@trpc/server/http';
import { REPORT_CATEGORIES, REPORT_POSTS_MAX } from '@swarm/contract';
import { loginPath } from '$lib/next-path';
import type { Actions, PageServerLoad } from './$types';

// Report a post (`?post=<id>&person=<its author>`) or a person (`?person=<address>`) to this
// node's moderators (issue #15); a remote one is also forwarded to its node unless the reporter
// says not to. The form offers the person's recent posts too: one report may name up to
// REPORT_POSTS_MAX of them (docs/clients.md "Reports").

/** How much of a post the form shows beside its checkbox. */
const EXCERPT_CHARS = 200;

interface ReportablePost {
  id: string;
  excerpt: string;
  createdAt: string;
  media: number;
}

/**
 * The person's newest own posts (reposts left out), as this node's profile read gives them: from
 * its own database, or their node when their stored profile is stale (the visitors' budget).
 * Streamed, so the form never waits on it; null when it cannot be read now.
 */
async function recentPosts(
  api: App.Locals['api'],
  person: string,
): Promise<ReportablePost[] | null> {
  try {
    const page = await api.profiles.get({ address: person, limit: REPORT_POSTS_MAX, tab: 'posts' });
    return page.posts
      .filter((post) => post.repostedBy === null)
      .map((post) => ({
        id: post.id,
        excerpt:
          post.content.length > EXCERPT_CHARS
            ? `${post.content.slice(0, EXCERPT_CHARS)}…`
            : post.content,
        createdAt: post.createdAt,
        media: post.media.length,
      }));
  } catch {
    return null;
  }
}

export const load: PageServerLoad = ({ locals, url }) => {
  if (!locals.session) redirect(303, loginPath(url));
  const person = (url.searchParams.get('person') ?? '').slice(0, 320);
  return {
    post: (url.searchParams.get('post') ?? '').slice(0, 600),
    person,
    categories: REPORT_CATEGORIES,
    maxPosts: REPORT_POSTS_MAX,
    recent: person ? recentPosts(locals.api, person) : Promise.resolve(null),
  };
};

export const actions: Actions = {
  default: async ({ request, locals, url }) => {
    if (!locals.session) redirect(303, loginPath(url));
    const form = await request.formData();
    const text = (name: string) => String(form.get(name) ?? '').trim();
    // The posts ticked (the one the report began from among them), else the person alone.
    const postIds = [
      ...new Set(
        form
          .getAll('posts')
          .map((value) => String(value).trim())
          .filter((id) => id !== ''),
      ),
    ];
    const values = {
      ...(postIds.length > 0 ? { postIds } : {}),
      target: text('person') || undefined,
      category: text('category') as (typeof REPORT_CATEGORIES)[number],
      comment: text('comment'),
      forward: form.get('forward') === 'on',
    };
    try {
      const filed = await locals.api.moderation.report(values);
      return { filed, named: postIds.length };
    } catch (error) {
      if (!(error instanceof TRPCError)) throw error;
      return fail(getHTTPStatusCodeFromError(error), {
        error: error.message,
        comment: values.comment,
        posts: postIds,
      });
    }
  },
};
