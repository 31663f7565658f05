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
  if (!checked.ok) {
    return { problem: checked.reason.description, delegation: null, delegationProblem: null };
  }
  if (!locals.session) redirect(303, loginPath(url));
  const { user } = locals.session;
  // App keys the person signs (docs/protocol.md "App delegations"): when the scopes let the app
  // act, the node makes a key for this grant and this page's script signs the delegation to it
  // with the person's key before Allow is posted. Without a key the app still gets its token.
  const prepared = await locals.node.appDelegations.prepare(user.id, {
    appId: checked.value.app.id,
    scopes: checked.value.scopes,
  });
  return {
    app: appOf(checked.value),
    account: { handle: user.handle, displayName: user.displayName },
    domain: locals.node.config.domain,
    delegation: prepared.ok ? prepared.value : null,
    delegationProblem: prepared.ok ? null : prepared.reason.message,
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
    const delegationId = form.get('delegationId');
    const signature = form.get('delegationSignature');
    if (typeof delegationId === 'string' && typeof signature === 'string' && signature) {
      const confirmed = await locals.node.appDelegations.confirm(locals.session.user.id, {
        appId: grant.app.id,
        delegationId,
        signature,
      });
      if (!confirmed.ok) return { problem: confirmed.reason.message };
    }
    const code = await locals.auth.oauth.issueCode(locals.session.user.id, grant);
    if (grant.redirectUri === OOB_REDIRECT_URI) return { app, code };
    return { app, returnTo: returnUrl(grant, { code }) };
  },
};
