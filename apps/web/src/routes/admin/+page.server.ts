import { nodeQueryFrom } from '$lib/components/admin/node-columns';
import { adminLoad } from './admin.server';
import type { PageServerLoad } from './$types';

// The nodes table: filter and sort are plain GET parameters (works without JavaScript), applied
// by the server.
export const load: PageServerLoad = async ({ locals, url }) => {
  const query = nodeQueryFrom(url.searchParams);
  const [list, outbox] = await adminLoad(url, () =>
    Promise.all([
      locals.api.admin.nodes.list({ ...query, q: query.q || undefined }),
      locals.api.admin.outbox.counts(),
    ]),
  );
  return { list, outbox, query };
};
