import { adminAction, adminLoad, field } from '../admin.server';
import type { Actions, PageServerLoad } from './$types';

export const load: PageServerLoad = async ({ locals, url }) => ({
  tokens: await adminLoad(url, () => locals.api.admin.tokens.list()),
});

export const actions: Actions = {
  // The token is in this answer only: the page shows it once, the database keeps its hash.
  create: async ({ locals, url, request }) => {
    const name = field(await request.formData(), 'name');
    return adminAction(
      url,
      async () => {
        const created = await locals.api.admin.tokens.create({ name });
        return {
          action: 'create' as const,
          created: { id: created.id, name: created.name, token: created.token },
        };
      },
      { action: 'create' as const, name },
    );
  },

  revoke: async ({ locals, url, request }) => {
    const form = await request.formData();
    const id = field(form, 'id');
    const name = field(form, 'name');
    return adminAction(
      url,
      async () => {
        await locals.api.admin.tokens.revoke({ id });
        return { action: 'revoke' as const, id, message: `The token “${name}” is revoked.` };
      },
      { action: 'revoke' as const, id },
    );
  },
};
