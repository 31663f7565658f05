import { adminAction, adminLoad, field, intField } from '../admin.server';
import type { Actions, PageServerLoad } from './$types';

export const load: PageServerLoad = async ({ locals, url }) => ({
  seeds: await adminLoad(url, () => locals.api.admin.seeds.list()),
});

export const actions: Actions = {
  add: async ({ locals, url, request }) => {
    const form = await request.formData();
    const domain = field(form, 'domain');
    const priority = field(form, 'priority');
    return adminAction(
      url,
      async () => {
        const seed = await locals.api.admin.seeds.add({
          domain,
          priority: intField(form, 'priority'),
        });
        return {
          action: 'add' as const,
          message: `${seed.domain} is a seed (priority ${seed.priority}).`,
        };
      },
      { action: 'add' as const, domain, priority },
    );
  },

  priority: async ({ locals, url, request }) => {
    const form = await request.formData();
    const domain = field(form, 'domain');
    return adminAction(
      url,
      async () => {
        const seed = await locals.api.admin.seeds.setPriority({
          domain,
          priority: intField(form, 'priority'),
        });
        return {
          action: 'priority' as const,
          domain,
          message: `${seed.domain} now has priority ${seed.priority}.`,
        };
      },
      { action: 'priority' as const, domain, priority: field(form, 'priority') },
    );
  },

  enabled: async ({ locals, url, request }) => {
    const form = await request.formData();
    const domain = field(form, 'domain');
    const isEnabled = field(form, 'isEnabled') === 'true';
    return adminAction(
      url,
      async () => {
        await locals.api.admin.seeds.setEnabled({ domain, isEnabled });
        return {
          action: 'enabled' as const,
          domain,
          message: `${domain} is ${isEnabled ? 'enabled' : 'disabled'}.`,
        };
      },
      { action: 'enabled' as const, domain },
    );
  },
};
