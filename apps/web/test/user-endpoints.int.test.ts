import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { authServicesOf, type AuthServices, type SessionUser } from '@swarm/auth';
import { VISITOR_FETCH } from '@swarm/domain';
import {
  createTestNetwork,
  sessionUserByHandle,
  signedInCaller,
  type NetworkNode,
  type TestNetwork,
} from './harness.ts';
import {
  followUserResponse,
  getUserPostsResponse,
  getUserResponse,
} from '../src/lib/server/user-endpoints.ts';

// The spec's user-facing JSON endpoints (`GET /api/users/[handle]`, `/posts`, `POST …/follow`)
// as their route handlers run them: with a real tRPC caller on alpha.test, which fetches remote
// users from beta.test over the test network's HTTP semantics.

const ALPHA = 'alpha.test';
const BETA = 'beta.test';

/**
 * Profiles read earlier are kept and shown from here (docs/architecture.md "What pages read"):
 * cases about failures to read a node start as if alpha had never read anyone.
 */
const forgetStoredProfiles = () => alpha.node.db.prisma.remoteProfile.deleteMany();

let net: TestNetwork;
let alpha: NetworkNode;
let beta: NetworkNode;
let alice: SessionUser;
let auth: AuthServices;
const ids: Record<string, string> = {};

const apiAs = (user: SessionUser | null) => signedInCaller(alpha.node, user, { auth });

async function read(response: Response) {
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

beforeAll(async () => {
  net = await createTestNetwork({
    nodes: [
      { domain: ALPHA, handles: ['alice'] },
      { domain: BETA, handles: ['bob'], seeds: [ALPHA] },
    ],
  });
  alpha = net.node(ALPHA);
  beta = net.node(BETA);
  await net.announceAll();
  auth = authServicesOf(alpha.node);
  alice = await sessionUserByHandle(alpha.node, 'alice');
  const now = net.clock.now().getTime();
  ids.a1 = (
    await alpha.node.db.prisma.post.create({
      data: { authorId: alice.id, content: 'a1', createdAt: new Date(now - 60_000) },
    })
  ).id;
  const bob = await beta.node.db.prisma.user.update({
    where: { handle: 'bob' },
    data: { displayName: 'Bob B.', postsCount: 2 },
  });
  for (const [name, minutes] of [
    ['b1', 3],
    ['b2', 2],
  ] as const) {
    ids[name] = (
      await beta.node.db.prisma.post.create({
        data: { authorId: bob.id, content: name, createdAt: new Date(now - minutes * 60_000) },
      })
    ).id;
  }
});

afterAll(async () => {
  await net.close();
});

beforeEach(() => net.network.healAll());

describe('GET /api/users/[handle]', () => {
  it('answers a local user with the profile fields and isSwarm false', async () => {
    const { status, body } = await read(await getUserResponse(apiAs(null), 'alice'));
    expect(status).toBe(200);
    expect(body).toEqual({
      profile: expect.objectContaining({
        handle: 'alice',
        nodeDomain: ALPHA,
        address: 'alice',
        postsCount: 0,
        avatarUrl: '',
        createdAt: expect.any(String),
        isBot: false,
      }),
      isSwarm: false,
    });
  });

  it('fetches handle@domain from its node, isSwarm true', async () => {
    const { status, body } = await read(await getUserResponse(apiAs(alice), `bob@${BETA}`));
    expect(status).toBe(200);
    expect(body.isSwarm).toBe(true);
    expect(body.profile).toMatchObject({
      handle: 'bob',
      displayName: 'Bob B.',
      nodeDomain: BETA,
      address: `bob@${BETA}`,
      postsCount: 2,
      did: beta.users[0]!.did,
    });
  });

  it('answers the error body with 400, 404 and 502, one message for every peer failure', async () => {
    const cases: [string, () => void, number, string][] = [
      ['bad handle!', () => {}, 400, 'INVALID_REQUEST'],
      ['nobody', () => {}, 404, 'USER_NOT_FOUND'],
      [`nobody@${BETA}`, () => {}, 404, 'USER_NOT_FOUND'],
      [`bob@${BETA}`, () => net.network.fail5xx(BETA), 502, 'PEER_UNAVAILABLE'],
      [`bob@${BETA}`, () => net.network.garbage(BETA), 502, 'PEER_UNAVAILABLE'],
      // A timeout answers like every other failure (no probing of ports through page views).
      [`bob@${BETA}`, () => net.network.hang(BETA), 502, 'PEER_UNAVAILABLE'],
    ];
    const unavailable = new Set<unknown>();
    for (const [handle, fault, status, code] of cases) {
      await forgetStoredProfiles();
      fault();
      const answer = await read(await getUserResponse(apiAs(null), handle));
      expect({ handle, ...answer }).toEqual({
        handle,
        status,
        body: { error: expect.any(String), code },
      });
      if (status === 502) unavailable.add(answer.body.error);
      net.network.heal(BETA);
      // Failures are remembered for anonymous visitors: let each case ask the peer again.
      net.clock.advance(VISITOR_FETCH.negativeTtlMs);
    }
    expect([...unavailable]).toEqual([`${BETA} is not available right now. Try again later.`]);
  });

  it('serves a passing failure again to visitors for seconds, an answer about the user for a minute', async () => {
    const asks = (handle: string) =>
      net.network.requests.filter(
        (r) => r.domain === BETA && r.path.startsWith(`/api/swarm/users/${handle}`),
      ).length;
    const asVisitor = async (handle: string) =>
      (await getUserResponse(apiAs(null), `${handle}@${BETA}`)).status;
    await forgetStoredProfiles();
    net.network.fail5xx(BETA);
    expect(await asVisitor('bob')).toBe(502);
    net.network.heal(BETA);
    expect(await asVisitor('nobody')).toBe(404);
    const [bobAsked, nobodyAsked] = [asks('bob'), asks('nobody')];
    // Within the short window every visitor gets the remembered failure, without asking.
    net.clock.advance(VISITOR_FETCH.transientTtlMs - 1);
    expect(await asVisitor('bob')).toBe(502);
    expect(asks('bob')).toBe(bobAsked);
    net.clock.advance(1);
    expect(await asVisitor('bob')).toBe(200);
    expect(asks('bob')).toBe(bobAsked + 1);
    // A 404 is an answer about the user, not a passing fault: remembered for the whole minute.
    net.clock.advance(VISITOR_FETCH.negativeTtlMs - VISITOR_FETCH.transientTtlMs - 1);
    expect(await asVisitor('nobody')).toBe(404);
    expect(asks('nobody')).toBe(nobodyAsked);
    net.clock.advance(1);
    expect(await asVisitor('nobody')).toBe(404);
    expect(asks('nobody')).toBe(nobodyAsked + 1);
  });
});

describe('GET /api/users/[handle]/posts', () => {
  it('lists remote posts with swarm ids and local posts with ours', async () => {
    const remote = await read(
      await getUserPostsResponse(apiAs(null), `bob@${BETA}`, new URLSearchParams()),
    );
    expect(remote.status).toBe(200);
    expect(remote.body.isSwarm).toBe(true);
    expect(remote.body.posts).toEqual([
      expect.objectContaining({
        id: `swarm:${BETA}:${ids.b2}`,
        content: 'b2',
        author: expect.objectContaining({
          handle: 'bob',
          nodeDomain: BETA,
          address: `bob@${BETA}`,
        }),
      }),
      expect.objectContaining({
        id: `swarm:${BETA}:${ids.b1}`,
        content: 'b1',
        linkPreviewUrl: null,
      }),
    ]);
    const limited = await read(
      await getUserPostsResponse(apiAs(null), `bob@${BETA}`, new URLSearchParams('limit=1')),
    );
    expect((limited.body.posts as unknown[]).length).toBe(1);

    const local = await read(
      await getUserPostsResponse(apiAs(null), 'alice', new URLSearchParams()),
    );
    expect(local.body).toEqual({
      posts: [expect.objectContaining({ id: ids.a1, content: 'a1', nodeDomain: ALPHA })],
      isSwarm: false,
    });
  });

  it('refuses a malformed limit and maps a dead peer', async () => {
    const bad = await read(
      await getUserPostsResponse(apiAs(null), 'alice', new URLSearchParams('limit=-1')),
    );
    expect(bad).toEqual({
      status: 400,
      body: { error: expect.any(String), code: 'INVALID_REQUEST' },
    });
    await forgetStoredProfiles();
    net.network.drop(BETA);
    const dead = await read(
      await getUserPostsResponse(apiAs(null), `bob@${BETA}`, new URLSearchParams()),
    );
    expect(dead).toMatchObject({ status: 502, body: { code: 'PEER_UNAVAILABLE' } });
  });
});

describe('POST /api/users/<handle>@<domain>/follow', () => {
  it('needs a session and a remote handle, changing nothing otherwise', async () => {
    const follows = () => alpha.node.db.prisma.follow.count();
    const before = await follows();
    expect(await read(await followUserResponse(apiAs(null), `bob@${BETA}`, false))).toEqual({
      status: 401,
      body: { error: expect.any(String), code: 'UNAUTHORIZED' },
    });
    expect(await read(await followUserResponse(apiAs(alice), 'bob', true))).toMatchObject({
      status: 400,
      body: { code: 'INVALID_REQUEST' },
    });
    expect(await follows()).toBe(before);
  });

  it('follows a remote user: the follow reaches their node', async () => {
    const answer = await read(await followUserResponse(apiAs(alice), `bob@${BETA}`, true));
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ success: true, following: `bob@${BETA}` });
    const bob = await beta.node.db.prisma.user.findUniqueOrThrow({ where: { handle: 'bob' } });
    expect(bob.followersCount).toBe(1);
    // The poller reads bob again (the follow made him due at once); his page shows the count.
    await alpha.node.remoteContent.poller.pollDue();
    const profile = await read(await getUserResponse(apiAs(alice), `bob@${BETA}`));
    expect(profile.body.profile).toMatchObject({ followersCount: 1 });
  });
});
