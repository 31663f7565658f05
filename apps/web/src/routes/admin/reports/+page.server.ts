import { adminAction, adminLoad, field } from '../admin.server';
import type { Actions, PageServerLoad } from './$types';

const STATUSES = ['open', 'resolved', 'dismissed', 'all'] as const;
type Status = (typeof STATUSES)[number];

export const load: PageServerLoad = async ({ locals, url }) => {
  const asked = url.searchParams.get('status') ?? 'open';
  const status: Status = (STATUSES as readonly string[]).includes(asked)
    ? (asked as Status)
    : 'open';
  const [reports, mutedNodes] = await adminLoad(url, () =>
    Promise.all([
      locals.api.moderation.admin.reports({ status }),
      locals.api.moderation.admin.mutedNodes(),
    ]),
  );
  return { reports, mutedNodes, status };
};

export const actions: Actions = {
  act: async ({ locals, url, request }) => {
    const form = await request.formData();
    const reportId = field(form, 'reportId');
    const action = field(form, 'action');
    const reason = field(form, 'reason');
    return adminAction(
      url,
      async () => {
        const report = await locals.api.moderation.admin.act({
          reportId,
          action: action as 'dismiss',
          reason,
        });
        return { reportId, message: `Done: ${report.resolution} (${report.status}).` };
      },
      { reportId, reason },
    );
  },
  unmuteNode: async ({ locals, url, request }) => {
    const form = await request.formData();
    const domain = field(form, 'domain');
    return adminAction(url, async () => {
      await locals.api.moderation.admin.muteNode({ domain, muted: false, reason: 'unmuted' });
      return { reportId: '', message: `${domain} is no longer muted.` };
    });
  },
};
