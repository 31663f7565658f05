import { fail, redirect } from '@sveltejs/kit';
import { TRPCError } from '@trpc/server';
import { getHTTPStatusCodeFromError } from '@trpc/server/http';
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
    try {
      await locals.api.settings.revokeApp({ appId });
      // Its delegations end with it, for good (docs/protocol.md "App delegations").
      await locals.node.appDelegations.revoke({ userId: locals.session.user.id, appId });
    } catch (error) {
      if (!(error instanceof TRPCError)) throw error;
      return fail(getHTTPStatusCodeFromError(error), { error: error.message });
    }
    return { revoked: name };
  },
};
