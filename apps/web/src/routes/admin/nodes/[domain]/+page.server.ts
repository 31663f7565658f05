import { adminAction, adminLoad, field } from '../../admin.server';
import type { Actions, PageServerLoad } from './$types';

export const load: PageServerLoad = async ({ locals, url, params }) => {
  const detail = await adminLoad(url, () => locals.api.admin.nodes.get({ domain: params.domain }));
  return { detail };
};

// Each action answers `{ action, … }` so the page shows its outcome next to the right form.
export const actions: Actions = {
  block: async ({ locals, url, params, request }) => {
    const reason = field(await request.formData(), 'reason');
    return adminAction(
      url,
      async () => {
        await locals.api.admin.nodes.block({ domain: params.domain, reason: reason || undefined });
        return { action: 'block' as const, message: `${params.domain} is blocked.` };
      },
      { action: 'block' as const, reason },
    );
  },

  unblock: async ({ locals, url, params }) =>
    adminAction(
      url,
      async () => {
        await locals.api.admin.nodes.unblock({ domain: params.domain });
        return { action: 'unblock' as const, message: `${params.domain} is no longer blocked.` };
      },
      { action: 'unblock' as const },
    ),

  resetKey: async ({ locals, url, params }) =>
    adminAction(
      url,
      async () => {
        await locals.api.admin.nodes.resetKey({ domain: params.domain });
        return {
          action: 'resetKey' as const,
          message:
            'The pinned key and the profile are forgotten: the next contact learns both again.',
        };
      },
      { action: 'resetKey' as const },
    ),

  gossip: async ({ locals, url, params }) =>
    adminAction(
      url,
      async () => ({
        action: 'gossip' as const,
        title: `Gossip with ${params.domain}`,
        report: await locals.api.admin.actions.gossip({ domain: params.domain }),
      }),
      { action: 'gossip' as const },
    ),

  discover: async ({ locals, url, params }) =>
    adminAction(
      url,
      async () => ({
        action: 'discover' as const,
        title: `Probe of ${params.domain}`,
        report: await locals.api.admin.actions.discover({ domain: params.domain }),
      }),
      { action: 'discover' as const },
    ),

  announce: async ({ locals, url, params }) =>
    adminAction(
      url,
      async () => ({
        action: 'announce' as const,
        title: `Announce to ${params.domain}`,
        report: await locals.api.admin.actions.announce({ domain: params.domain }),
      }),
      { action: 'announce' as const },
    ),
};
