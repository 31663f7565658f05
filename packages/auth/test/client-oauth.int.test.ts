import { sha256 } from '@oslojs/crypto/sha2';
import { encodeBase64urlNoPadding } from '@oslojs/encoding';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDb } from '@swarm/db/testing';
import { createMemoryLimits } from '@swarm/domain';
import type { Db } from '@swarm/db';
import {
  createAuthServices,
  hashOAuthSecret,
  OAUTH_CODE_TTL_MS,
  type AuthServices,
  type AuthorizationRequest,
  type ClientCredentials,
} from '../src/index.ts';
import { movableClock } from './helpers.ts';

const REDIRECT = 'http://127.0.0.1:8123/callback';
const VERIFIER = 'v'.repeat(20) + '-._~' + 'A1'.repeat(12);
const challengeOf = (verifier: string) =>
  encodeBase64urlNoPadding(sha256(new TextEncoder().encode(verifier)));

describe('the authorization server (codes, tokens, revocation)', () => {
  let db: Db;
  let auth: AuthServices;
  const clock = movableClock();
  let userId: string;
  let client: ClientCredentials;

  async function register(scopes = ['read', 'write']) {
    const app = await auth.clientApps.register(
      { client_name: 'Test app', redirect_uris: [REDIRECT], scopes, website: null },
      `10.0.0.${Math.floor(Math.random() * 200)}`,
    );
    if (!app.ok) throw new Error(app.reason.message);
    return { clientId: app.value.client_id, clientSecret: app.value.client_secret! };
  }

  async function consent(
    credentials: ClientCredentials,
    extra: Record<string, string> = {},
  ): Promise<{ code: string; request: AuthorizationRequest }> {
    const checked = await auth.oauth.checkAuthorization({
      response_type: 'code',
      client_id: credentials.clientId,
      redirect_uri: REDIRECT,
      scope: 'read',
      code_challenge: challengeOf(VERIFIER),
      code_challenge_method: 'S256',
      ...extra,
    });
    if (!checked.ok) throw new Error(checked.reason.description);
    return { code: await auth.oauth.issueCode(userId, checked.value), request: checked.value };
  }

  const exchange = (c: ClientCredentials, code: string, codeVerifier: string | null = VERIFIER) =>
    auth.oauth.exchangeCode(c, { code, redirectUri: REDIRECT, codeVerifier });

  beforeAll(async () => {
    db = await createTestDb();
    auth = createAuthServices({ db, clock, limits: createMemoryLimits({ clock }) });
    const created = await auth.accounts.createUser({
      handle: 'alice',
      password: 'correct horse battery',
      isAdmin: false,
    });
    if (!created.ok) throw new Error(created.reason.message);
    userId = created.value.user.id;
    client = await register();
  });
  afterAll(() => db.close());

  it('exchanges a code once, with the PKCE verifier, for a token stored hashed', async () => {
    const { code } = await consent(client);
    const token = await exchange(client, code);
    if (!token.ok) throw new Error(token.reason.description);
    expect(token.value).toMatchObject({ token_type: 'Bearer', scope: 'read' });
    const rows = await db.prisma.oAuthToken.findMany({ where: { userId } });
    expect(rows.map((r) => Buffer.from(r.tokenHash).toString('hex'))).toContain(
      Buffer.from(hashOAuthSecret(token.value.access_token)).toString('hex'),
    );
    expect(JSON.stringify(rows)).not.toContain(token.value.access_token);
    const grant = await auth.clientTokens.authenticate(token.value.access_token);
    expect(grant).toMatchObject({ userId, scopes: ['read'] });

    const again = await exchange(client, code);
    expect(again).toMatchObject({ ok: false, reason: { error: 'invalid_grant' } });
  });

  it('refuses a wrong verifier, a missing one, another app and another redirect', async () => {
    const other = await register();
    const cases: [ClientCredentials, string | null, string][] = [
      [client, 'w'.repeat(43), 'invalid_grant'],
      [client, null, 'invalid_grant'],
      [other, VERIFIER, 'invalid_grant'],
      [{ ...client, clientSecret: 'nope' }, VERIFIER, 'invalid_client'],
    ];
    for (const [who, verifier, error] of cases) {
      const { code } = await consent(client);
      expect(await exchange(who, code, verifier)).toMatchObject({ ok: false, reason: { error } });
    }
    const { code } = await consent(client);
    const moved = await auth.oauth.exchangeCode(client, {
      code,
      redirectUri: 'http://127.0.0.1:8123/other',
      codeVerifier: VERIFIER,
    });
    expect(moved).toMatchObject({ ok: false, reason: { error: 'invalid_grant' } });
  });

  it('expires codes after ten minutes', async () => {
    const { code } = await consent(client);
    clock.advance(OAUTH_CODE_TTL_MS);
    expect(await exchange(client, code)).toMatchObject({
      ok: false,
      reason: { error: 'invalid_grant', description: 'The code has expired.' },
    });
  });

  it('sweeps codes never exchanged once they expire', async () => {
    const { request } = await consent(client);
    clock.advance(OAUTH_CODE_TTL_MS);
    await auth.oauth.issueCode(userId, request);
    const left = await db.prisma.oAuthCode.findMany({ where: { userId } });
    expect(left).toHaveLength(1);
    expect(left[0]!.expiresAt.getTime()).toBe(clock.now().getTime() + OAUTH_CODE_TTL_MS);
  });

  it('checks the authorization request: redirect, scopes, PKCE method', async () => {
    const base = {
      response_type: 'code',
      client_id: client.clientId,
      redirect_uri: REDIRECT,
      scope: 'read:accounts write',
    };
    expect(await auth.oauth.checkAuthorization(base)).toMatchObject({ ok: true });
    const refused: [Record<string, string>, string][] = [
      [{ redirect_uri: 'http://127.0.0.1:9/evil' }, 'invalid_request'],
      [{ client_id: 'unknown' }, 'invalid_client'],
      [{ scope: 'follow' }, 'invalid_scope'],
      [{ response_type: 'token' }, 'unsupported_response_type'],
      [
        { code_challenge: challengeOf(VERIFIER), code_challenge_method: 'plain' },
        'invalid_request',
      ],
      [{ code_challenge: challengeOf(VERIFIER) }, 'invalid_request'],
    ];
    for (const [change, error] of refused) {
      const checked = await auth.oauth.checkAuthorization({ ...base, ...change });
      expect(checked, JSON.stringify(change)).toMatchObject({ ok: false, reason: { error } });
    }
  });

  it('issues app-only tokens by client credentials, read by default', async () => {
    const token = await auth.oauth.clientCredentials(client, null);
    if (!token.ok) throw new Error(token.reason.description);
    expect(token.value.scope).toBe('read');
    expect(await auth.clientTokens.authenticate(token.value.access_token)).toMatchObject({
      userId: null,
    });
    expect(await auth.oauth.clientCredentials(client, 'push')).toMatchObject({
      ok: false,
      reason: { error: 'invalid_scope' },
    });
  });

  it('stops a token at once when revoked, its app deleted or its user suspended', async () => {
    const issue = async () => {
      const { code } = await consent(client);
      const token = await exchange(client, code);
      if (!token.ok) throw new Error(token.reason.description);
      return token.value.access_token;
    };
    const first = await issue();
    expect(await auth.oauth.revoke(client, first)).toEqual({ ok: true, value: undefined });
    expect(await auth.clientTokens.authenticate(first)).toBeNull();

    const second = await issue();
    await db.prisma.user.update({ where: { id: userId }, data: { suspendedAt: clock.now() } });
    expect(await auth.clientTokens.authenticate(second)).toBeNull();
    await db.prisma.user.update({ where: { id: userId }, data: { suspendedAt: null } });
    expect(await auth.clientTokens.authenticate(second)).not.toBeNull();

    const apps = await auth.clientTokens.authorizedApps(userId);
    const mine = apps.find((a) => a.name === 'Test app')!;
    expect(mine.scopes).toEqual(['read']);
    expect(await auth.clientTokens.revokeApp(userId, mine.appId)).toBeGreaterThan(0);
    expect(await auth.clientTokens.authenticate(second)).toBeNull();

    const third = await issue();
    await db.prisma.clientApp.deleteMany({ where: { clientId: client.clientId } });
    expect(await auth.clientTokens.authenticate(third)).toBeNull();
  });
});
