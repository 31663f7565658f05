import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { serve, type ServerType } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionUser } from '@swarm/auth';
import {
  createTestNode,
  insertKeyedUser,
  signedInCaller,
  signedInteraction,
  startOriginPeer,
  type KeyedUser,
  type OriginPeer,
  type TestNode,
} from './harness.ts';

// Reads both ways between our node and a node of the origin profile (the fake origin peer of
// packages/testnet, built from the fact sheet), over real HTTP: our gateway listens on a real
// port as `localhost:<port>` (the origin's scheme rule: http for localhost), the origin peer on
// its own. Our side is driven through its front door for people (tRPC callers, as the web app's
// hook builds them); the origin's side through its request and reader functions.

const ADMIN_TOKEN = 'origin-reads-admin-token-0123456789';

let origin: OriginPeer;
let ours: TestNode;
let server: ServerType;
let self: string;
let alice: KeyedUser;
let bob: KeyedUser;

const asAnyone = () => signedInCaller(ours.node, null);
const as = (user: SessionUser) => signedInCaller(ours.node, user);
const swarmId = (postId: string) => `swarm:${origin.domain}:${postId}`;

/**
 * Stored profiles as if read more than PROFILE_FRESH_MS ago: the next page view reads the node
 * again. (Our clock must stay near real time: the origin signs with its own.)
 */
async function profilesReadLongAgo() {
  await ours.node.db.prisma.remoteProfile.updateMany({ data: { readAt: new Date(0) } });
}

beforeAll(async () => {
  origin = await startOriginPeer({
    users: [{ handle: 'carol', displayName: 'Carol', avatarUrl: 'https://img.test/carol.png' }],
  });
  // Our gateway on a real socket; its own domain names that port.
  server = serve({ fetch: (request) => ours.app.fetch(request), port: 0, hostname: '127.0.0.1' });
  await once(server, 'listening');
  self = `localhost:${(server.address() as AddressInfo).port}`;
  ours = await createTestNode({
    SWARM_DOMAIN: self,
    SWARM_DEV: '1',
    SWARM_NODE_NAME: 'Ours',
    ADMIN_TOKEN,
  });
  // The manual clock starts at a fixed date; ours and the origin's posts compare by real time.
  ours.clock.set(new Date());
  alice = await insertKeyedUser(ours.node, 'alice');
  bob = await insertKeyedUser(ours.node, 'bob');
  // The origin announces itself (body-signed, its way), and a probe of its /api/swarm/info
  // makes it a contacted, active peer here.
  expect((await origin.announceTo(self)).status).toBe(200);
  const probe = await ours.node.registry.probe(origin.domain, 'admin');
  expect(probe).toMatchObject({ ok: true });
});

afterAll(async () => {
  server?.close();
  await ours?.close();
  await origin?.close();
});

describe('our node reads an origin peer', () => {
  it('shows origin posts in the swarm feed (its timeline shape: no media, no linkPreviewUrl, extra members)', async () => {
    origin.addPost('carol', 'hello from the origin');
    // A read of her profile keeps her posts here; the feed reads only this node's database.
    await asAnyone().profiles.get({ address: `carol@${origin.domain}` });
    const feed = await asAnyone().timeline.swarm();
    const post = feed.posts.find((p) => p.content === 'hello from the origin');
    expect(post).toMatchObject({
      author: { handle: 'carol', domain: origin.domain, displayName: 'Carol', isRemote: true },
      media: [],
      linkPreview: null,
    });
  });

  it('shows an origin profile with its posts (empty members omitted, its own did form)', async () => {
    origin.addPost('carol', 'a post on her profile');
    await profilesReadLongAgo(); // her profile stored by the previous read is old
    const page = await asAnyone().profiles.get({ address: `carol@${origin.domain}` });
    expect(page.isSwarm).toBe(true);
    expect(page.profile).toMatchObject({
      actor: { handle: 'carol', domain: origin.domain, displayName: 'Carol' },
      bio: '',
      did: origin.users.get('carol')!.did,
    });
    expect(page.posts.map((p) => p.content)).toContain('a post on her profile');
  });

  it('opens an origin post ({ post, replies } without nodeDomain) with its replies (singular counts, domain split out)', async () => {
    const post = origin.addPost('carol', 'a post with replies');
    post.likes.add('someone@elsewhere.test');
    post.replies.push(
      {
        key: `local:${crypto.randomUUID()}`,
        id: crypto.randomUUID(),
        content: 'carol answers herself',
        createdAt: new Date(Date.now() + 1000).toISOString(),
        authorHandle: 'carol',
        authorDisplayName: 'Carol',
        nodeDomain: origin.domain,
      },
      {
        key: `swarm:gamma.test:r1`,
        id: crypto.randomUUID(),
        content: 'erin from gamma answers',
        createdAt: new Date(Date.now() + 2000).toISOString(),
        authorHandle: 'erin',
        authorDisplayName: 'Erin',
        nodeDomain: 'gamma.test',
      },
    );
    const thread = await asAnyone().threads.get({ id: swarmId(post.id) });
    expect(thread.isSwarm).toBe(true);
    expect(thread.post).toMatchObject({
      id: swarmId(post.id),
      content: 'a post with replies',
      author: { handle: 'carol', domain: origin.domain },
      likesCount: 1,
      repliesCount: 2,
      isNsfw: false,
    });
    expect(
      thread.replies.map((r) => [r.content, r.author.address, r.author.domain, r.likesCount]),
    ).toEqual([
      ['carol answers herself', `carol@${origin.domain}`, origin.domain, 0],
      ['erin from gamma answers', 'erin@gamma.test', 'gamma.test', 0],
    ]);
  });

  it('likes, reposts and replies to an origin post through tRPC: the post is found, and what reaches the origin passes its validation (no "" URLs)', async () => {
    const post = origin.addPost('carol', 'like me from the other side');
    const id = swarmId(post.id);
    // alice has no avatar: her like, repost and reply must not carry an empty URL.
    const like = await as(alice.user).interactions.like({
      postId: id,
      signed: await signedInteraction(as(alice.user), alice.privateKey, 'like', id),
    });
    expect(like.delivery).toMatchObject({ kind: 'like', targetDomain: origin.domain });
    const repost = await as(alice.user).interactions.repost({
      postId: id,
      signed: await signedInteraction(as(alice.user), alice.privateKey, 'repost', id),
    });
    expect(repost.delivery).toMatchObject({ kind: 'repost', targetDomain: origin.domain });
    const reply = await as(alice.user).posts.create({ content: 'hello carol', replyToId: id });
    expect(reply.deliveries).toEqual([
      expect.objectContaining({ kind: 'reply', targetDomain: origin.domain }),
    ]);

    // Each request reached the origin once and passed its rules (validation, signature).
    expect(origin.refused).toEqual([]);
    const seen = (endpoint: 'like' | 'repost' | 'replies') =>
      origin.acceptedOf(endpoint).map((a) => a.body);
    const [likeBody] = seen('like');
    expect(seen('like')).toHaveLength(1);
    expect(likeBody).toMatchObject({ postId: post.id, like: { actorHandle: 'alice' } });
    expect(likeBody!.like).not.toHaveProperty('actorAvatarUrl');
    const [repostBody] = seen('repost');
    expect(seen('repost')).toHaveLength(1);
    expect(repostBody!.repost).not.toHaveProperty('actorAvatarUrl');
    const [replyBody] = seen('replies');
    expect(seen('replies')).toHaveLength(1);
    expect(replyBody).toMatchObject({ postId: post.id, reply: { content: 'hello carol' } });
    expect((replyBody!.reply as { author: object }).author).not.toHaveProperty('avatarUrl');
    // The receiver's effects, once each.
    expect([...post.likes]).toEqual([`alice@${self}`]);
    expect([...post.reposts]).toEqual([`alice@${self}`]);
    expect(post.replies.map((r) => r.content)).toEqual(['hello carol']);
  });
});

describe('the operator CLI replies to an origin post', () => {
  it('`swarm posts create --reply-to swarm:<origin>:<id>` finds the post and delivers the reply', async () => {
    const post = origin.addPost('carol', 'answer me from the command line');
    const tsxCli = createRequire(import.meta.url).resolve('tsx/cli');
    const cliMain = fileURLToPath(
      new URL('../../../apps/gateway/src/cli/main.ts', import.meta.url),
    );
    const args = ['posts', 'create', 'hi', 'from', 'the', 'CLI', '--as', 'bob'];
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [tsxCli, cliMain, '--node', `http://${self}`, ...args, '--reply-to', swarmId(post.id)],
      { env: { ...process.env, SWARM_ADMIN_TOKEN: ADMIN_TOKEN, ADMIN_TOKEN: '' }, timeout: 60_000 },
    );
    expect(stdout).toMatch(/^posted [0-9a-f-]{36} as bob/);
    expect(stdout).toContain(`reply to ${origin.domain}`);
    expect(post.replies.map((r) => [r.content, r.authorHandle])).toEqual([
      ['hi from the CLI', `bob@${self}`],
    ]);
  }, 90_000);
});

describe('an origin peer reads our node', () => {
  it('reads our profile, single post ({ post, replies }) and timeline by its rules', async () => {
    const dora = await insertKeyedUser(ours.node, 'dora');
    const { post } = await as(dora.user).posts.create({ content: 'dora writes for everyone' });
    await as(bob.user).posts.create({ content: 'bob answers dora', replyToId: post.id });

    const user = await origin.read.user(self, 'dora');
    expect(user).toMatchObject({
      ok: true,
      value: { handle: `dora@${self}`, displayName: 'Dora', postsCount: 1, isSwarm: true },
    });

    const single = await origin.read.post(self, post.id);
    expect(single).toMatchObject({
      ok: true,
      value: {
        post: { id: post.id, content: 'dora writes for everyone', author: { handle: 'dora' } },
        replies: [expect.objectContaining({ content: 'bob answers dora' })],
      },
    });
    // The same answer still is the spec's bare single post for every other reader.
    const bare = (await (await fetch(`http://${self}/api/swarm/posts/${post.id}`)).json()) as {
      id: string;
      nodeDomain: string;
      repliesCount: number;
    };
    expect(bare).toMatchObject({ id: post.id, nodeDomain: self, repliesCount: 1 });

    const timeline = await origin.read.timeline(self);
    expect(timeline.ok && timeline.value.map((p) => p.content)).toContain(
      'dora writes for everyone',
    );
  });
});

describe('gossip from an origin peer', () => {
  it('reads handle entries without `updatedAt`; without a time claim only a new did changes one', async () => {
    const carol = origin.users.get('carol')!;
    const gossip = (did: string) =>
      origin.post(
        self,
        '/api/swarm/gossip',
        origin.signBody({
          sender: origin.domain,
          nodes: [origin.info()],
          handles: [{ handle: 'carol', did, nodeDomain: origin.domain }],
          timestamp: new Date().toISOString(),
        }),
      );
    const entry = () =>
      ours.node.db.prisma.handleRegistryEntry.findUnique({
        where: { handle_nodeDomain: { handle: 'carol', nodeDomain: origin.domain } },
      });
    expect((await gossip(carol.did)).status).toBe(200);
    const first = await entry();
    expect(first?.did).toBe(carol.did);
    // The same claim again changes nothing (no write, no new change stamp for our peers).
    ours.clock.advance(60_000);
    expect((await gossip(carol.did)).status).toBe(200);
    expect((await entry())?.changedAt).toEqual(first?.changedAt);
    // Another did is news.
    const other = 'did:key:zQ3shNewKeyOfCarolAfterAReinstall';
    expect((await gossip(other)).status).toBe(200);
    expect(await entry()).toMatchObject({ did: other });
  });
});

describe('a peer that refuses our requests is not down', () => {
  const row = () =>
    ours.node.db.prisma.swarmNode.findUniqueOrThrow({ where: { domain: origin.domain } });

  it('a 4xx to our gossip or announce is recorded as a refusal; the peer stays active and in the feed', async () => {
    origin.refusing.set('gossip', 400);
    origin.refusing.set('announce', 403);
    const before = await row();
    for (let round = 0; round < 6; round++) {
      const report = await ours.node.gossip.exchangeWith(origin.domain);
      expect(report).toMatchObject({ ok: false, refused: true });
      expect(report.error).toContain('HTTP 400');
      expect(report.error).toContain('Refused gossip');
    }
    const announced = await ours.node.registry.announceTo(origin.domain, 'admin');
    expect(announced).toMatchObject({ ok: false, refused: true });

    const after = await row();
    expect(after).toMatchObject({
      isActive: true,
      consecutiveFailures: 0,
      trustScore: before.trustScore,
    });
    expect(after.lastError).toContain('HTTP 403');

    // The sync log (and the admin node page, through the admin API) shows the refusals.
    const admin = await insertKeyedUser(ours.node, 'root');
    await ours.node.db.prisma.user.update({
      where: { id: admin.user.id },
      data: { isAdmin: true },
    });
    const detail = await as({ ...admin.user, isAdmin: true }).admin.nodes.get({
      domain: origin.domain,
    });
    const refusals = detail.syncLog.filter((r) => r.refused);
    expect(refusals).toHaveLength(6);
    expect(refusals.every((r) => !r.success && r.errorMessage?.includes('HTTP 400'))).toBe(true);

    // Still read (here: her profile, as the crawler reads its timeline).
    origin.addPost('carol', 'still here');
    await profilesReadLongAgo();
    await asAnyone().profiles.get({ address: `carol@${origin.domain}` });
    const feed = await asAnyone().timeline.swarm();
    expect(feed.posts.map((p) => p.content)).toContain('still here');
  });

  it('an outage still counts: a 5xx to our gossip is a failed contact', async () => {
    origin.refusing.set('gossip', 503);
    const report = await ours.node.gossip.exchangeWith(origin.domain);
    expect(report).toMatchObject({ ok: false });
    expect(report).not.toHaveProperty('refused');
    expect(await row()).toMatchObject({ isActive: true, consecutiveFailures: 1 });
    origin.refusing.clear();
  });
});
