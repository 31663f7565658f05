import { adminAction, adminLoad, field } from '../admin.server';
import type { Actions, PageServerLoad } from './$types';

// Operator actions; the load only checks the caller (and shows the seeds an announce reaches).
export const load: PageServerLoad = async ({ locals, url }) => ({
  seeds: await adminLoad(url, () => locals.api.admin.seeds.list()),
});

export const actions: Actions = {
  announce: async ({ locals, url, request }) => {
    const domain = field(await request.formData(), 'domain');
    return adminAction(
      url,
      async () => ({
        action: 'announce' as const,
        title: domain ? `Announce to ${domain}` : 'Announce to seeds',
        report: await locals.api.admin.actions.announce(domain ? { domain } : undefined),
      }),
      { action: 'announce' as const, domain },
    );
  },

  discover: async ({ locals, url, request }) => {
    const domain = field(await request.formData(), 'domain');
    return adminAction(
      url,
      async () => ({
        action: 'discover' as const,
        title: `Discover ${domain}`,
        report: await locals.api.admin.actions.discover({ domain }),
      }),
      { action: 'discover' as const, domain },
    );
  },

  gossip: async ({ locals, url, request }) => {
    const domain = field(await request.formData(), 'domain');
    return adminAction(
      url,
      async () => ({
        action: 'gossip' as const,
        title: domain ? `Gossip with ${domain}` : 'Gossip round',
        report: await locals.api.admin.actions.gossip(domain ? { domain } : undefined),
      }),
      { action: 'gossip' as const, domain },
    );
  },
};
