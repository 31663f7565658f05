import { adminAction, adminLoad, field } from '../admin.server';
import type { Actions, PageServerLoad } from './$types';

const STATUSES = ['pending', 'failed', 'delivered', 'all'] as const;
type Shown = (typeof STATUSES)[number];

export const load: PageServerLoad = async ({ locals, url }) => {
  const raw = url.searchParams.get('status');
  const status: Shown = STATUSES.find((s) => s === raw) ?? 'pending';
  const [counts, deliveries] = await adminLoad(url, () =>
    Promise.all([
      locals.api.admin.outbox.counts(),
      locals.api.admin.outbox.list({ status: status === 'all' ? undefined : status, limit: 200 }),
    ]),
  );
  return { status, counts, deliveries };
};

export const actions: Actions = {
  retry: async ({ locals, url, request }) => {
    const id = field(await request.formData(), 'id');
    return adminAction(
      url,
      async () => ({ id, delivery: await locals.api.admin.outbox.retryNow({ id }) }),
      { id },
    );
  },
};
