import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authServicesOf, hashOAuthSecret, type SessionUser } from '@swarm/auth';
import { createClientApi, type ClientApi } from '@swarm/client-api';
import { signUserAction } from '@swarm/contract';
import {
  ALPHA as A,
  BETA as B,
  createTestNetwork,
  insertKeyedUser,
  sessionUserByHandle,
  signedInCaller,
  type KeyedUser,
  type NetworkNode,
  type TestNetwork,
} from './harness.ts';

// The client API's actions toward another node under the person's delegation (docs/clients.md
// "Signatures"; docs/protocol.md "App delegations"): alpha's client API, as the web app mounts
// it, called with bearer tokens of apps alice allowed, beta a real gateway on the test network.
// One app holds a delegation her browser signed at consent; the other (a Development token, or
// an app allowed without a key in the browser) holds none. The consent flow itself is
// oauth.process.test.ts; the receivers' refusals are app-delegations.swarm.test.ts.

let net: TestNetwork;
let alpha: NetworkNode;
let beta: NetworkNode;
let alice: KeyedUser;
let bob: SessionUser;
let api: ClientApi;
/** Tokens of two apps of alice's: `signing` holds her delegation, `bare` none. */
const tokens = { signing: '', bare: '' };

/** A token of a new app alice allowed with `scopes`; with her delegation signed when `sign`. */
async function allowApp(scopes: string, sign: boolean): Promise<string> {
  const prisma = alpha.node.db.prisma;
  const app = await prisma.clientApp.create({
    data: {
      name: `App ${randomUUID().slice(0, 6)}`,
      redirectUris: ['urn:ietf:wg:oauth:2.0:oob'],
      scopes,
      clientId: randomUUID(),
      secretHash: hashOAuthSecret(randomUUID()),
    },
  });
  const token = randomUUID();
  await prisma.oAuthToken.create({
    data: { tokenHash: hashOAuthSecret(token), appId: app.id, userId: alice.user.id, scopes },
  });
  if (sign) {
    const prepared = await alpha.node.appDelegations.prepare(alice.user.id, {
      appId: app.id,
      scopes: scopes.split(' '),
    });
    if (!prepared.ok || !prepared.value) throw new Error('expected a delegation to sign');
    const signature = await signUserAction({ privateKey: alice.privateKey, ...prepared.value });
    const confirmed = await alpha.node.appDelegations.confirm(alice.user.id, {
      appId: app.id,
      delegationId: String(prepared.value.body.id),
      signature,
    });
    if (!confirmed.ok) throw new Error(confirmed.reason.message);
  }
  return token;
}

async function call(token: string, method: string, path: string, body?: unknown) {
  const response = await api.fetch(
    new Request(`https://${A}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      body: body !== undefined ? JSON.stringify(body) : undefined,
    }),
    { clientIp: '192.0.2.7' },
  );
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

/** The body alpha last queued of `kind` for beta. */
async function lastSent(kind: string) {
  const rows = await alpha.node.db.prisma.outboxDelivery.findMany({
    where: { kind, targetDomain: B },
  });
  return rows.map((row) => JSON.parse(row.body) as Record<string, unknown>);
}

const bobFollowedByAlice = async () =>
  (await beta.node.db.prisma.follow.count({
    where: { followerKey: `swarm://${A}/alice`, followeeUserId: bob.id },
  })) === 1;

/** Beta's copy of alice's post (undefined: none). */
const copyOnBeta = (postId: string) =>
  beta.node.db.prisma.post.findUnique({ where: { apId: `swarm:${A}:${postId}` } });

beforeAll(async () => {
  net = await createTestNetwork({
    nodes: [
      { domain: A, handles: [] },
      { domain: B, handles: ['bob'], seeds: [A] },
    ],
  });
  alpha = net.node(A);
  beta = net.node(B);
  await net.announceAll();
  await net.roundsUntilConverged(5);
  alice = await insertKeyedUser(alpha.node, 'alice');
  bob = await sessionUserByHandle(beta.node, 'bob');
  api = createClientApi({ node: alpha.node, auth: authServicesOf(alpha.node) });
  tokens.signing = await allowApp('read write follow', true);
  tokens.bare = await allowApp('read write follow', false);
});
afterAll(() => net.close());

describe('following someone on another node from an app', () => {
  let bobId = '';

  it('with a delegation: the follow and the unfollow go signed by the app key', async () => {
    const found = await call(tokens.signing, 'GET', `/api/v1/accounts/lookup?acct=bob@${B}`);
    expect(found.status).toBe(200);
    bobId = String(found.json.id);
    const followed = await call(tokens.signing, 'POST', `/api/v1/accounts/${bobId}/follow`);
    expect(followed.status, JSON.stringify(followed.json)).toBe(200);
    expect(await bobFollowedByAlice()).toBe(true);
    const [follow] = await lastSent('follow');
    expect(follow).toMatchObject({
      delegation: { user: `alice@${A}` },
      signature: expect.any(String),
    });

    const unfollowed = await call(tokens.signing, 'POST', `/api/v1/accounts/${bobId}/unfollow`);
    expect(unfollowed.status).toBe(200);
    expect(unfollowed.json).toMatchObject({ following: false });
    expect(await bobFollowedByAlice()).toBe(false);
    const [unfollow] = await lastSent('unfollow');
    expect(unfollow).toMatchObject({ delegation: { user: `alice@${A}` } });
  });

  it('without one: the follow goes unsigned, as from our pages, and is taken all the same', async () => {
    const followed = await call(tokens.bare, 'POST', `/api/v1/accounts/${bobId}/follow`);
    expect(followed.status, JSON.stringify(followed.json)).toBe(200);
    expect(await bobFollowedByAlice()).toBe(true);
    const unsigned = (await lastSent('follow')).filter((body) => !('signature' in body));
    expect(unsigned).toHaveLength(1);
    expect(unsigned[0]).not.toHaveProperty('delegation');
  });
});

describe('deleting a status from an app', () => {
  /** A status alice writes from the signing app; beta gets it pushed (bob follows her). */
  async function statusHeldByBeta(text: string) {
    await signedInCaller(beta.node, bob).interactions.follow({ address: `alice@${A}` });
    const written = await call(tokens.signing, 'POST', '/api/v1/statuses', { status: text });
    expect(written.status, JSON.stringify(written.json)).toBe(200);
    await alpha.node.delivery.processDue();
    const postId = /[0-9a-f-]{36}$/.exec(String(written.json.url))![0];
    expect((await copyOnBeta(postId))?.deletedAt).toBeNull();
    return { id: String(written.json.id), postId };
  }

  it('with a delegation: the signed deletion removes the copy beta holds', async () => {
    const status = await statusHeldByBeta('gone everywhere');
    const deleted = await call(tokens.signing, 'DELETE', `/api/v1/statuses/${status.id}`);
    expect(deleted.status, JSON.stringify(deleted.json)).toBe(200);
    expect(deleted.json).toMatchObject({ id: status.id, text: 'gone everywhere' });
    expect((await copyOnBeta(status.postId))?.deletedAt).not.toBeNull();
    const sent = (await lastSent('delete-post')).find(
      (body) => (body.deletion as { postId: string }).postId === status.postId,
    );
    expect(sent).toMatchObject({ delegation: { user: `alice@${A}` } });
  });

  it('without one: deleted here only, beta keeps its copy', async () => {
    const status = await statusHeldByBeta('gone here only');
    const deleted = await call(tokens.bare, 'DELETE', `/api/v1/statuses/${status.id}`);
    expect(deleted.status).toBe(200);
    const here = await alpha.node.db.prisma.post.findUniqueOrThrow({
      where: { id: status.postId },
    });
    expect(here.deletedAt).not.toBeNull();
    expect((await copyOnBeta(status.postId))?.deletedAt).toBeNull();
    const sent = (await lastSent('delete-post')).filter(
      (body) => (body.deletion as { postId: string }).postId === status.postId,
    );
    expect(sent).toEqual([]);
  });
});
