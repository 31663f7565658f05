import { Hono, type Context } from 'hono';
import type { ClientCredentials, OAuthError } from '@swarm/auth';
import { baseUrlForDomain, CLIENT_SCOPES } from '@swarm/contract';
import type { ClientApiEnv } from '../deps.ts';
import { readParams, type Params } from '../params.ts';

/**
 * The token side of the authorization server (RFC 6749, 7009, 8414). Consent itself is a page of
 * the web app (`/oauth/authorize`), which needs the person's session; the rules are `auth`'s.
 */

const str = (value: unknown): string | null =>
  typeof value === 'string' && value !== '' ? value : null;

/** RFC 6749 §5.2: `{error, error_description}`, 401 for a client that failed to authenticate. */
function oauthError(c: Context, failure: OAuthError, basic = false) {
  const status = failure.error === 'invalid_client' ? 401 : 400;
  const headers: Record<string, string> = { 'cache-control': 'no-store' };
  if (status === 401) headers['www-authenticate'] = basic ? 'Basic realm="oauth"' : 'Bearer';
  return c.json({ error: failure.error, error_description: failure.description }, status, headers);
}

/** Client authentication by HTTP Basic (RFC 6749 §2.3.1) or by the body's client_id and secret. */
function clientOf(
  c: Context,
  params: Params,
): { client: ClientCredentials | null; basic: boolean } {
  const header = c.req.header('authorization') ?? '';
  if (/^Basic\s/i.test(header)) {
    try {
      const decoded = atob(header.replace(/^Basic\s+/i, '').trim());
      const colon = decoded.indexOf(':');
      if (colon < 0) return { client: null, basic: true };
      const clientId = decodeURIComponent(decoded.slice(0, colon));
      const clientSecret = decodeURIComponent(decoded.slice(colon + 1));
      return { client: clientId && clientSecret ? { clientId, clientSecret } : null, basic: true };
    } catch {
      return { client: null, basic: true };
    }
  }
  const clientId = str(params.client_id);
  const clientSecret = str(params.client_secret);
  return { client: clientId && clientSecret ? { clientId, clientSecret } : null, basic: false };
}

const invalidRequest = (description: string): OAuthError => ({
  error: 'invalid_request',
  description,
});
const noClient: OAuthError = {
  error: 'invalid_client',
  description: 'client_id and client_secret are required.',
};

export function oauthRoutes() {
  const app = new Hono<ClientApiEnv>();

  app.post('/oauth/token', async (c) => {
    const read = await readParams(c.req.raw);
    if (!read.ok) return oauthError(c, invalidRequest(read.reason));
    const params = read.value;
    const { client, basic } = clientOf(c, params);
    const grantType = str(params.grant_type);
    if (!grantType) return oauthError(c, invalidRequest('grant_type is missing.'));
    const { oauth } = c.var.deps.auth;
    if (grantType === 'authorization_code') {
      const code = str(params.code);
      const redirectUri = str(params.redirect_uri);
      if (!code || !redirectUri) {
        return oauthError(c, invalidRequest('code and redirect_uri are required.'));
      }
      if (!client) return oauthError(c, noClient, basic);
      const issued = await oauth.exchangeCode(client, {
        code,
        redirectUri,
        codeVerifier: str(params.code_verifier),
      });
      if (!issued.ok) return oauthError(c, issued.reason, basic);
      return c.json(issued.value, 200, { 'cache-control': 'no-store' });
    }
    if (grantType === 'client_credentials') {
      if (!client) return oauthError(c, noClient, basic);
      const issued = await oauth.clientCredentials(client, str(params.scope));
      if (!issued.ok) return oauthError(c, issued.reason, basic);
      return c.json(issued.value, 200, { 'cache-control': 'no-store' });
    }
    return oauthError(c, {
      error: 'unsupported_grant_type',
      description: 'grant_type must be authorization_code or client_credentials.',
    });
  });

  app.post('/oauth/revoke', async (c) => {
    const read = await readParams(c.req.raw);
    if (!read.ok) return oauthError(c, invalidRequest(read.reason));
    const { client, basic } = clientOf(c, read.value);
    const token = str(read.value.token);
    if (!token) return oauthError(c, invalidRequest('token is missing.'));
    if (!client) return oauthError(c, noClient, basic);
    const revoked = await c.var.deps.auth.oauth.revoke(client, token);
    if (!revoked.ok) return oauthError(c, revoked.reason, basic);
    return c.json({});
  });

  app.get('/.well-known/oauth-authorization-server', (c) => {
    const base = baseUrlForDomain(c.var.deps.node.config.domain);
    return c.json({
      issuer: base,
      authorization_endpoint: `${base}/oauth/authorize`,
      token_endpoint: `${base}/oauth/token`,
      revocation_endpoint: `${base}/oauth/revoke`,
      app_registration_endpoint: `${base}/api/v1/apps`,
      scopes_supported: [...CLIENT_SCOPES],
      response_types_supported: ['code'],
      response_modes_supported: ['query'],
      grant_types_supported: ['authorization_code', 'client_credentials'],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
      code_challenge_methods_supported: ['S256'],
    });
  });

  return app;
}
