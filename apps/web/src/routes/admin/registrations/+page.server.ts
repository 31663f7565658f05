import { adminAction, adminLoad, field, intField } from '../admin.server';
import type { Actions, PageServerLoad } from './$types';

export const load: PageServerLoad = async ({ locals, url }) => ({
  registrations: await adminLoad(url, () => locals.api.moderation.admin.registrations()),
});

export const actions: Actions = {
  mode: async ({ locals, url, request }) => {
    const form = await request.formData();
    const mode = field(form, 'mode');
    return adminAction(
      url,
      async () => {
        const settings = await locals.api.moderation.admin.setMode({
          mode: mode as 'open',
          reason: field(form, 'reason') || undefined,
        });
        return { section: 'mode' as const, message: `Registrations are now: ${settings.mode}.` };
      },
      { section: 'mode' as const },
    );
  },
  rules: async ({ locals, url, request }) => {
    const rules = String((await request.formData()).get('rules') ?? '');
    return adminAction(
      url,
      async () => {
        await locals.api.moderation.admin.setRules({ rules });
        return { section: 'rules' as const, message: 'The rules are saved.' };
      },
      { section: 'rules' as const },
    );
  },
  invite: async ({ locals, url, request }) => {
    const form = await request.formData();
    const days = field(form, 'expiresInDays');
    return adminAction(
      url,
      async () => {
        const created = await locals.api.moderation.admin.createInvite({
          maxUses: intField(form, 'maxUses'),
          expiresInDays: days === '' ? null : intField(form, 'expiresInDays'),
        });
        return {
          section: 'invite' as const,
          message: 'Invite created. Copy the link now: it will not be shown again.',
          link: `${url.origin}/signup?invite=${encodeURIComponent(created.code)}`,
        };
      },
      { section: 'invite' as const },
    );
  },
  revoke: async ({ locals, url, request }) => {
    const id = field(await request.formData(), 'id');
    return adminAction(
      url,
      async () => {
        await locals.api.moderation.admin.revokeInvite({ id });
        return { section: 'invite' as const, message: 'The invite is revoked.' };
      },
      { section: 'invite' as const },
    );
  },
  decide: async ({ locals, url, request }) => {
    const form = await request.formData();
    const decision = field(form, 'decision') === 'reject' ? 'reject' : 'approve';
    const handle = field(form, 'handle');
    return adminAction(
      url,
      async () => {
        await locals.api.moderation.admin.decide({
          userId: field(form, 'userId'),
          decision,
          reason: field(form, 'reason') || undefined,
        });
        return {
          section: 'pending' as const,
          message: `@${handle} is ${decision === 'approve' ? 'approved' : 'rejected'}.`,
        };
      },
      { section: 'pending' as const },
    );
  },
};
