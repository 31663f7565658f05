import { sha256 } from '@oslojs/crypto/sha2';
import { constantTimeEqual } from '@oslojs/crypto/subtle';
import { encodeBase64urlNoPadding } from '@oslojs/encoding';
import { err, ok, type Result } from '@swarm/contract';
import type { Db } from '@swarm/db';
import { hashClientSecret } from './client-apps.ts';
import { parseScopes, scopeCovered } from './client-scopes.ts';
import type { AuthClock } from './types.ts';

/**
 * The authorization server of the client API (RFC 6749 with PKCE, RFC 7636, RFC 7009): codes
 * and tokens are random, stored as their SHA-256 only, and bound to the app they were issued to.
 */

/** A code is exchanged within seconds by a working app; ten minutes covers a slow person. */
export const OAUTH_CODE_TTL_MS = 10 * 60 * 1000;
const SECRET_BYTES = 32;
/** RFC 7636: 43 to 128 unreserved characters. */
const VERIFIER_PATTERN = /^[A-Za-z0-9\-._~]{43,128}$/;
/** A base64url SHA-256, as S256 challenges are. */
const CHALLENGE_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'invalid_scope'
  | 'unsupported_grant_type'
  | 'unsupported_response_type';

export interface OAuthError {
  error: OAuthErrorCode;
  description: string;
}

export interface OAuthTokenAnswer {
  access_token: string;
  token_type: 'Bearer';
  scope: string;
  created_at: number;
}

/** What the consent page shows and, once allowed, turns into a code. */
export interface AuthorizationRequest {
  app: { id: string; name: string; website: string | null };
  redirectUri: string;
  scopes: string[];
  codeChallenge: string | null;
  state: string | null;
}

export interface AuthorizeParams {
  response_type?: unknown;
  client_id?: unknown;
  redirect_uri?: unknown;
  scope?: unknown;
  state?: unknown;
  code_challenge?: unknown;
  code_challenge_method?: unknown;
}

export interface ClientCredentials {
  clientId: string;
  clientSecret: string;
}

export interface OAuthService {
  /** Checks an authorization request; an error here is shown, never redirected to. */
  checkAuthorization(params: AuthorizeParams): Promise<Result<AuthorizationRequest, OAuthError>>;
  /** The person allowed: a single-use code for the app. */
  issueCode(userId: string, request: AuthorizationRequest): Promise<string>;
  exchangeCode(
    client: ClientCredentials,
    input: { code: string; redirectUri: string; codeVerifier: string | null },
  ): Promise<Result<OAuthTokenAnswer, OAuthError>>;
  /** An app-only token (no user), `read` unless the app asks for other scopes it registered. */
  clientCredentials(
    client: ClientCredentials,
    scope: string | null,
  ): Promise<Result<OAuthTokenAnswer, OAuthError>>;
  /** RFC 7009: a token of another app, or none, is not an error. */
  revoke(client: ClientCredentials, token: string): Promise<Result<void, OAuthError>>;
}

const fail = (error: OAuthErrorCode, description: string) =>
  err<OAuthError>({ error, description });

const str = (value: unknown): string | null =>
  typeof value === 'string' && value !== '' ? value : null;

export function hashOAuthSecret(secret: string): Uint8Array<ArrayBuffer> {
  return new Uint8Array(sha256(new TextEncoder().encode(secret)));
}

function s256(verifier: string): string {
  return encodeBase64urlNoPadding(sha256(new TextEncoder().encode(verifier)));
}

const randomSecret = () =>
  encodeBase64urlNoPadding(crypto.getRandomValues(new Uint8Array(SECRET_BYTES)));

export function createOAuthService(deps: { db: Db; clock: AuthClock }): OAuthService {
  const { prisma } = deps.db;
  const now = () => deps.clock.now();

  /** The app whose id and secret these are, or null (unknown id or wrong secret alike). */
  async function authenticateClient(client: ClientCredentials) {
    const app = await prisma.clientApp.findUnique({ where: { clientId: client.clientId } });
    if (!app) return null;
    const given = hashClientSecret(client.clientSecret);
    return constantTimeEqual(given, new Uint8Array(app.secretHash)) ? app : null;
  }

  async function issueToken(appId: string, userId: string | null, scopes: string[]) {
    const token = randomSecret();
    const createdAt = now();
    await prisma.oAuthToken.create({
      data: {
        tokenHash: hashOAuthSecret(token),
        appId,
        userId,
        scopes: scopes.join(' '),
        createdAt,
      },
    });
    return ok<OAuthTokenAnswer>({
      access_token: token,
      token_type: 'Bearer',
      scope: scopes.join(' '),
      created_at: Math.floor(createdAt.getTime() / 1000),
    });
  }

  return {
    async checkAuthorization(params) {
      const clientId = str(params.client_id);
      if (!clientId) return fail('invalid_request', 'client_id is missing.');
      const app = await prisma.clientApp.findUnique({ where: { clientId } });
      if (!app) return fail('invalid_client', 'No app is registered with this client_id.');
      const redirectUri =
        str(params.redirect_uri) ?? (app.redirectUris.length === 1 ? app.redirectUris[0]! : null);
      if (!redirectUri || !app.redirectUris.includes(redirectUri)) {
        return fail('invalid_request', 'The redirect_uri is not one the app registered.');
      }
      if (params.response_type !== 'code') {
        return fail('unsupported_response_type', 'Only response_type=code is supported.');
      }
      const registered = parseScopes(app.scopes);
      const scopes = parseScopes(str(params.scope) ?? 'read');
      const outside = scopes.find((s) => !scopeCovered(registered, s));
      if (outside) {
        return fail('invalid_scope', `The scope "${outside}" was not registered by the app.`);
      }
      const challenge = str(params.code_challenge);
      const method = str(params.code_challenge_method);
      if (challenge === null && method !== null) {
        return fail('invalid_request', 'code_challenge_method was sent without code_challenge.');
      }
      if (challenge !== null) {
        if ((method ?? 'plain') !== 'S256') {
          return fail('invalid_request', 'Only the S256 code_challenge_method is supported.');
        }
        if (!CHALLENGE_PATTERN.test(challenge)) {
          return fail('invalid_request', 'The code_challenge is not a base64url SHA-256.');
        }
      }
      return ok({
        app: { id: app.id, name: app.name, website: app.website },
        redirectUri,
        scopes,
        codeChallenge: challenge,
        state: str(params.state),
      });
    },

    async issueCode(userId, request) {
      const code = randomSecret();
      const at = now();
      // Consents are rare and codes short-lived: each one sweeps the codes never exchanged, so
      // the table stays small without a housekeeping step (expired codes are refused anyway).
      await prisma.oAuthCode.deleteMany({ where: { expiresAt: { lte: at } } });
      await prisma.oAuthCode.create({
        data: {
          codeHash: hashOAuthSecret(code),
          appId: request.app.id,
          userId,
          redirectUri: request.redirectUri,
          scopes: request.scopes.join(' '),
          codeChallenge: request.codeChallenge,
          expiresAt: new Date(at.getTime() + OAUTH_CODE_TTL_MS),
          createdAt: at,
        },
      });
      return code;
    },

    async exchangeCode(client, input) {
      const app = await authenticateClient(client);
      if (!app) return fail('invalid_client', 'Client authentication failed.');
      const codeHash = hashOAuthSecret(input.code);
      const row = await prisma.oAuthCode.findUnique({
        where: { codeHash },
        include: { user: { select: { suspendedAt: true, pendingApproval: true } } },
      });
      // Single use: whoever deletes the row owns the exchange; a replay finds nothing.
      const claimed = row ? await prisma.oAuthCode.deleteMany({ where: { codeHash } }) : null;
      if (!row || claimed?.count !== 1) {
        return fail('invalid_grant', 'The code is unknown or was already used.');
      }
      if (row.appId !== app.id) return fail('invalid_grant', 'The code was issued to another app.');
      if (now().getTime() >= row.expiresAt.getTime()) {
        return fail('invalid_grant', 'The code has expired.');
      }
      if (row.redirectUri !== input.redirectUri) {
        return fail('invalid_grant', 'The redirect_uri differs from the authorization request.');
      }
      if (row.codeChallenge !== null) {
        const verifier = input.codeVerifier;
        if (!verifier) return fail('invalid_grant', 'code_verifier is missing.');
        if (!VERIFIER_PATTERN.test(verifier)) {
          return fail('invalid_grant', 'The code_verifier is not 43 to 128 unreserved characters.');
        }
        const expected = new TextEncoder().encode(row.codeChallenge);
        if (!constantTimeEqual(new TextEncoder().encode(s256(verifier)), expected)) {
          return fail('invalid_grant', 'The code_verifier does not match the code_challenge.');
        }
      } else if (input.codeVerifier) {
        return fail('invalid_grant', 'A code_verifier was sent for a code issued without PKCE.');
      }
      if (row.user.suspendedAt || row.user.pendingApproval) {
        return fail('invalid_grant', 'The account cannot use apps now.');
      }
      return issueToken(app.id, row.userId, parseScopes(row.scopes));
    },

    async clientCredentials(client, scope) {
      const app = await authenticateClient(client);
      if (!app) return fail('invalid_client', 'Client authentication failed.');
      const scopes = parseScopes(scope ?? 'read');
      const registered = parseScopes(app.scopes);
      const outside = scopes.find((s) => !scopeCovered(registered, s));
      if (outside) {
        return fail('invalid_scope', `The scope "${outside}" was not registered by the app.`);
      }
      return issueToken(app.id, null, scopes);
    },

    async revoke(client, token) {
      const app = await authenticateClient(client);
      if (!app) return fail('invalid_client', 'Client authentication failed.');
      await prisma.oAuthToken.deleteMany({
        where: { tokenHash: hashOAuthSecret(token), appId: app.id },
      });
      return ok(undefined);
    },
  };
}
