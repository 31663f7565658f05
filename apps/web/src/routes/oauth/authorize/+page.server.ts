import { redirect } from '@sveltejs/kit';
import type { AuthorizationRequest } from '@swarm/auth';
import { OOB_REDIRECT_URI } from '@swarm/contract';
import { describeScope } from '$lib/oauth-scopes';
import { loginPath } from '$lib/next-path';
import type { Actions, PageServerLoad } from './$types';

/**
 * The consent page of the client API's authorization server (docs/clients.md). The request's
 * parameters stay in this page's URL, and the form posts back to it (a same-origin cookie form
 * under the node's CSRF check), so the action checks them again instead of trusting a field.
 */

function appOf(request: AuthorizationRequest) {
  return {
    name: request.app.name,
    website: request.app.website,
    scopes: request.scopes.map((scope) => ({ scope, text: describeScope(scope) })),
  };
}

/** The app's redirect with the answer's parameters (and `state` as it came). */
function returnUrl(request: AuthorizationRequest, answer: Record<string, string>): string {
  const url = new URL(request.redirectUri);
  for (const [key, value] of Object.entries(answer)) url.searchParams.set(key, value);
  if (request.state !== null) url.searchParams.set('state', request.state);
  return url.href;
}

export const load: PageServerLoad = async ({ locals, url }) => {
  const checked = await locals.auth.oauth.checkAuthorization(Object.fromEntries(url.searchParams));
  if (!checked.ok) return { problem: checked.reason.description };
  if (!locals.session) redirect(303, loginPath(url));
  const { user } = locals.session;
  return {
    app: appOf(checked.value),
    account: { handle: user.handle, displayName: user.displayName },
    domain: locals.node.config.domain,
  };
};

export const actions: Actions = {
  default: async ({ locals, request, url }) => {
    if (!locals.session) redirect(303, loginPath(url));
    const checked = await locals.auth.oauth.checkAuthorization(
      Object.fromEntries(url.searchParams),
    );
    if (!checked.ok) return { problem: checked.reason.description };
    const grant = checked.value;
    const form = await request.formData();
    const allowed = form.get('decision') === 'allow';
    const app = appOf(grant);
    if (!allowed) {
      const denied = { error: 'access_denied', error_description: 'The person refused.' };
      if (grant.redirectUri === OOB_REDIRECT_URI) return { app, denied: true };
      return { app, returnTo: returnUrl(grant, denied) };
    }
    const code = await locals.auth.oauth.issueCode(locals.session.user.id, grant);
    if (grant.redirectUri === OOB_REDIRECT_URI) return { app, code };
    return { app, returnTo: returnUrl(grant, { code }) };
  },
};
