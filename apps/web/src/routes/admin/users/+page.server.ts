import { adminAction, adminLoad, field } from '../admin.server';
import type { Actions, PageServerLoad } from './$types';

export const load: PageServerLoad = async ({ locals, url }) => ({
  users: await adminLoad(url, () => locals.api.admin.users.list()),
});

export const actions: Actions = {
  // Suspension and silence (issue #15): reversible, with a reason for the audit log.
  moderate: async ({ locals, url, request }) => {
    const form = await request.formData();
    const handle = field(form, 'handle');
    const what = field(form, 'what');
    const reason = field(form, 'reason');
    return adminAction(
      url,
      async () => {
        const admin = locals.api.moderation.admin;
        if (what === 'suspend' || what === 'unsuspend') {
          await admin.suspend({ handle, suspended: what === 'suspend', reason });
        } else {
          await admin.silence({ handle, silenced: what === 'silence', reason });
        }
        return { message: `@${handle}: ${what} done.` };
      },
      { handle, reason },
    );
  },
};
