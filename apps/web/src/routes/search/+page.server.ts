import { error } from '@sveltejs/kit';
import { settle } from '$lib/server/content-load';
import type { PageServerLoad } from './$types';

const TABS = ['people', 'posts', 'tags'] as const;
type SearchTab = (typeof TABS)[number];

// GET /search?q=…&tab=people|posts|tags: one query, three tabs (issue #14). Without `tab` the
// page opens on tags for `#…`, else on the first tab with results.
export const load: PageServerLoad = async ({ locals, url }) => {
  const q = url.searchParams.get('q') ?? '';
  const asked = url.searchParams.get('tab');
  const answer = await settle(locals.api.search.query({ q }), (cause) =>
    locals.node.logger.error({ err: cause }, 'search failed'),
  );
  if (!answer.ok) error(answer.status, { message: answer.message, code: answer.code });
  const results = answer.value;
  const counts = {
    people: results.people.length,
    posts: results.posts.length,
    tags: results.tags.length,
  };
  let tab: SearchTab;
  if (TABS.includes(asked as SearchTab)) tab = asked as SearchTab;
  else if (q.trim().startsWith('#')) tab = 'tags';
  else tab = TABS.find((name) => counts[name] > 0) ?? 'posts';
  return { q, tab, results, counts };
};
