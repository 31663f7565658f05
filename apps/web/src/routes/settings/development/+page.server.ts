import { fail, redirect } from '@sveltejs/kit';
import { TRPCError } from '@trpc/server';
import { getHTTPStatusCodeFromError } from '@trpc/server/http';
import { loginPath } from '$lib/next-path';
import { describeScope } from '$lib/oauth-scopes';
import type { Actions, PageServerLoad } from './$types';

// Settings → Development: applications and access tokens a person makes for their own account
// (bots, scripts), as Mastodon's Development page offers; the secrets are shown once.

/** The scopes offered as boxes: the top-level ones, which cover every granular form. */
const OFFERED_SCOPES = ['read', 'write', 'follow', 'push', 'profile'] as const;
const DEFAULT_SCOPES = new Set(['read', 'write', 'follow']);

export const load: PageServerLoad = async ({ locals, url }) => {
  if (!locals.session) redirect(303, loginPath(url));
  const apps = await locals.api.settings.developerApps();
  return {
    offered: OFFERED_SCOPES.map((scope) => ({
      scope,
      text: describeScope(scope),
      checked: DEFAULT_SCOPES.has(scope),
    })),
    apps: apps.map((app) => ({
      id: app.id,
      name: app.name,
      website: app.website,
      clientId: app.clientId,
      createdAt: app.createdAt.toISOString(),
      lastUsedAt: app.lastUsedAt?.toISOString() ?? null,
      scopes: app.scopes,
    })),
  };
};

export const actions: Actions = {
  create: async ({ request, locals, url }) => {
    if (!locals.session) redirect(303, loginPath(url));
    const form = await request.formData();
    const name = String(form.get('name') ?? '');
    const website = String(form.get('website') ?? '');
    const scopes = form.getAll('scopes').map(String);
    try {
      const made = await locals.api.settings.createDeveloperApp({ name, website, scopes });
      return {
        created: {
          name: made.app.name,
          clientId: made.app.clientId,
          clientSecret: made.clientSecret,
          accessToken: made.accessToken,
          scopes: made.app.scopes.join(' '),
        },
      };
    } catch (error) {
      if (!(error instanceof TRPCError)) throw error;
      return fail(getHTTPStatusCodeFromError(error), { error: error.message, name, website });
    }
  },

  delete: async ({ request, locals, url }) => {
    if (!locals.session) redirect(303, loginPath(url));
    const form = await request.formData();
    const appId = String(form.get('appId') ?? '');
    const name = String(form.get('name') ?? '');
    try {
      await locals.api.settings.deleteDeveloperApp({ appId });
    } catch (error) {
      if (!(error instanceof TRPCError)) throw error;
      return fail(getHTTPStatusCodeFromError(error), { error: error.message });
    }
    return { deleted: name };
  },
};
