import { redirect } from '@sveltejs/kit';
import { loginPath } from '$lib/next-path';
import { describeScope } from '$lib/oauth-scopes';
import type { Actions, PageServerLoad } from './$types';

// "Authorized apps": the apps the person allowed through the consent page, each revocable.

export const load: PageServerLoad = async ({ locals, url }) => {
  if (!locals.session) redirect(303, loginPath(url));
  const apps = await locals.api.settings.authorizedApps();
  return {
    apps: apps.map((app) => ({
      ...app,
      authorizedAt: app.authorizedAt.toISOString(),
      lastUsedAt: app.lastUsedAt?.toISOString() ?? null,
      scopes: app.scopes.map((scope) => ({ scope, text: describeScope(scope) })),
    })),
  };
};

export const actions: Actions = {
  revoke: async ({ request, locals, url }) => {
    if (!locals.session) redirect(303, loginPath(url));
    const form = await request.formData();
    const appId = String(form.get('appId') ?? '');
    const name = String(form.get('name') ?? '');
    await locals.api.settings.revokeApp({ appId });
    return { revoked: name };
  },
};
