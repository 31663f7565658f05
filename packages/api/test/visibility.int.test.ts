import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuthServices, SessionUser } from '@swarm/auth';
import { createNodeWithAuth, signUpUsers, signedInCaller, type TestNode } from './harness.ts';

// Who may be seen (docs/security.md "Who may be seen", packages/domain/src/views/visibility.ts):
// one rule, applied by every read. Each kind of hidden account below wrote a public post
// "unicorn #zebra", replied to okay's post, follows okay and is followed by vera, and liked
// vera's post. Every read in READS is asked, anonymously and as vera, and must leave out each
// kind it hides. The peers' reads go through the gateway's front door; people's reads through
// the tRPC procedures the web app calls (its pages and `/api/users/*` are built on them).

const DOMAIN = 'alpha.test';
const PASSWORD = 'correct horse battery';

/** The kinds of account a read may have to hide, and the control that is always shown. */
const KINDS = ['suspended', 'pending', 'deleted', 'moved', 'muted', 'blocked'] as const;
type Kind = (typeof KINDS)[number];
const HANDLE: Record<Kind | 'okay', string> = {
  okay: 'okay',
  suspended: 'sus',
  pending: 'pend',
  deleted: 'gone',
  moved: 'moved',
  muted: 'mutie',
  blocked: 'blockie',
};

/** Hidden from everyone vs. hidden from vera (who muted mutie and blocked blockie). */
const FOR_EVERYONE: Kind[] = ['suspended', 'pending', 'deleted', 'moved'];
const FOR_VERA: Kind[] = [...FOR_EVERYONE, 'muted', 'blocked'];
/** Direct reads (an address, an id): a moved account still answers there, pointing on. */
const UNKNOWN: Kind[] = ['suspended', 'pending', 'deleted'];

let t: TestNode;
let auth: AuthServices;
let users: Record<string, SessionUser>;
const postOf: Record<string, string> = {};

const anon = () => signedInCaller(t.node, null, { auth });
const vera = () => signedInCaller(t.node, users.vera!, { auth });
const handles = (list: { handle: string }[]) => list.map((x) => x.handle.split('@')[0]!);
const authors = (posts: { author: { handle: string } }[]) => handles(posts.map((p) => p.author));

/** A read: who it shows (handles), or for direct reads which handles answer. */
interface Read {
  name: string;
  /** The kinds it must hide. */
  hides: Kind[];
  /** Who it shows; or, for a read that gives a number, how many of the accounts it counts. */
  shown: () => Promise<string[] | number>;
  /** Someone it always shows (default okay). */
  control?: string;
}

/** Handles among all for which `ask` does not fail (direct reads: 404 for the hidden). */
async function answering(ask: (handle: string) => Promise<unknown>): Promise<string[]> {
  const all = Object.values(HANDLE);
  const ok = await Promise.all(
    all.map((h) =>
      ask(h).then(
        () => true,
        () => false,
      ),
    ),
  );
  return all.filter((_, i) => ok[i]);
}

async function gatewayJson(path: string): Promise<unknown> {
  const res = await t.request(path);
  if (res.status !== 200) throw new Error(`${path}: ${res.status}`);
  return res.json();
}

const READS: Read[] = [
  // Peers: GET /api/swarm/* (anonymous by the spec).
  {
    name: 'gateway GET /api/swarm/users/<handle>',
    hides: UNKNOWN,
    shown: () => answering((h) => gatewayJson(`/api/swarm/users/${h}`)),
  },
  {
    name: 'gateway GET /api/swarm/posts/<id>',
    hides: UNKNOWN,
    shown: () =>
      answering((h) =>
        postOf[h] ? gatewayJson(`/api/swarm/posts/${postOf[h]}`) : Promise.reject(new Error()),
      ),
  },
  {
    name: 'gateway GET /api/swarm/timeline',
    hides: FOR_EVERYONE,
    shown: async () =>
      authors(((await gatewayJson('/api/swarm/timeline')) as { posts: never[] }).posts),
  },
  {
    name: 'gateway GET /api/swarm/replies',
    hides: FOR_EVERYONE.filter((k) => k !== 'moved'),
    shown: async () =>
      handles(
        (
          (await gatewayJson(`/api/swarm/replies?postId=${postOf.okay}`)) as {
            replies: { author: { handle: string } }[];
          }
        ).replies.map((r) => r.author),
      ),
  },
  {
    name: 'gateway GET /api/swarm/users/okay/followers',
    hides: FOR_EVERYONE,
    control: 'vera',
    shown: async () =>
      handles(
        ((await gatewayJson('/api/swarm/users/okay/followers')) as { followers: never[] })
          .followers,
      ),
  },
  {
    name: 'gateway GET /api/swarm/users/vera/following',
    hides: FOR_EVERYONE,
    shown: async () =>
      handles(
        ((await gatewayJson('/api/swarm/users/vera/following')) as { following: never[] })
          .following,
      ),
  },
  // People: tRPC, anonymous and as vera.
  ...(['anonymous', 'vera'] as const).flatMap((who): Read[] => {
    const as = who === 'vera' ? vera : anon;
    const hides = who === 'vera' ? FOR_VERA : FOR_EVERYONE;
    return [
      {
        name: `${who}: search.query people by handle`,
        hides,
        // Every handle here is one of these: the people search by handle prefix finds each.
        shown: async () => {
          const found = await Promise.all(
            Object.values(HANDLE).map(async (h) =>
              handles((await as().search.query({ q: h })).people),
            ),
          );
          return [...new Set(found.flat())];
        },
      },
      {
        name: `${who}: search.query people by name`,
        hides,
        shown: async () => handles((await as().search.query({ q: 'Person' })).people),
      },
      {
        name: `${who}: search.query posts`,
        hides,
        shown: async () => authors((await as().search.query({ q: 'unicorn' })).posts),
      },
      {
        name: `${who}: search.query tag count`,
        // One #zebra post per account. A count is the same for everyone (mutes filter lists).
        hides: FOR_EVERYONE,
        shown: async () =>
          (await as().search.query({ q: '#zebra' })).tags.find((x) => x.tag === 'zebra')?.count ??
          0,
      },
      {
        name: `${who}: search.tag`,
        hides,
        shown: async () => authors((await as().search.tag({ tag: 'zebra' })).posts),
      },
      {
        name: `${who}: timeline.local`,
        hides,
        shown: async () => authors((await as().timeline.local({})).posts),
      },
      {
        name: `${who}: timeline.swarm`,
        hides,
        shown: async () => authors((await as().timeline.swarm({})).posts),
      },
      {
        name: `${who}: profiles.get`,
        hides: UNKNOWN,
        shown: () => answering((address) => as().profiles.get({ address })),
      },
      {
        name: `${who}: threads.get of okay's post (replies)`,
        // Replies belong to the post read by id: a moved account's reply stays in its thread.
        hides: hides.filter((k) => k !== 'moved'),
        shown: async () => authors((await as().threads.get({ id: postOf.okay! })).replies),
      },
      {
        name: `${who}: threads.get of each post`,
        hides: UNKNOWN,
        shown: () =>
          answering((h) =>
            postOf[h] ? as().threads.get({ id: postOf[h] }) : Promise.reject(new Error()),
          ),
      },
      {
        name: `${who}: profiles.followers of okay`,
        hides,
        control: 'vera',
        shown: async () => handles((await as().profiles.followers({ address: 'okay' })).people),
      },
      {
        name: `${who}: profiles.following of vera`,
        hides,
        shown: async () => handles((await as().profiles.following({ address: 'vera' })).people),
      },
    ];
  }),
  {
    name: 'vera: timeline.home',
    hides: FOR_VERA,
    shown: async () => authors((await vera().timeline.home({})).posts),
  },
  {
    name: 'vera: notifications.list',
    // Notifications are vera's own history: a moved account's past like stays true.
    hides: FOR_VERA.filter((k) => k !== 'moved'),
    shown: async () => handles((await vera().notifications.list({})).items.map((n) => n.actor)),
  },
  {
    name: 'vera: notifications.unreadCount and the live snapshot',
    hides: FOR_VERA.filter((k) => k !== 'moved'),
    shown: async () => {
      const count = await vera().notifications.unreadCount();
      expect((await liveSnapshotOf(users.vera!.id)).notifications.unread).toBe(count);
      return count;
    },
  },
];

/** The snapshot a signed-in page's live stream gets first (`/events`, the node's live hub). */
async function liveSnapshotOf(userId: string): Promise<{ notifications: { unread: number } }> {
  const { sessionId } = await auth.sessions.create(userId);
  const opened = t.node.live.open({ userId, sessionId });
  if (!opened.ok) throw new Error(opened.message);
  const written: string[] = [];
  opened.stream.attach({ write: (text) => void written.push(text), end: () => undefined });
  try {
    await t.node.live.refresh();
    const data = written.join('').match(/^data: (.*)$/m)?.[1];
    if (!data) throw new Error('the live stream sent no snapshot');
    return JSON.parse(data) as { notifications: { unread: number } };
  } finally {
    opened.stream.close();
  }
}

beforeAll(async () => {
  ({ t, auth } = await createNodeWithAuth({ SWARM_DOMAIN: DOMAIN }));
  const prisma = t.node.db.prisma;
  const all = Object.values(HANDLE);
  ({ users } = await signUpUsers(auth, ['vera', ...all.filter((h) => h !== 'pend')], PASSWORD));
  expect((await t.node.moderation.registrations.setMode('vera', 'approval')).ok).toBe(true);
  const pending = await auth.accounts.signUp({
    handle: 'pend',
    displayName: 'Pend',
    password: PASSWORD,
    reason: 'let me in',
  });
  if (!pending.ok || !('pending' in pending.value)) throw new Error('pend is not pending');
  users.pend = pending.value.user;
  // Every account's name says "Person" (people search by name), and each posts once.
  const veraPost = await prisma.post.create({
    data: { authorId: users.vera!.id, content: 'vera here' },
  });
  for (const [i, handle] of all.entries()) {
    const user = users[handle]!;
    await prisma.user.update({
      where: { id: user.id },
      data: { displayName: `Person ${handle}` },
    });
    const post = await prisma.post.create({
      data: {
        authorId: user.id,
        content: `unicorn #zebra by ${handle}`,
        createdAt: new Date(Date.UTC(2026, 10, 20, 10, 0, i)),
      },
    });
    postOf[handle] = post.id;
  }
  for (const [i, handle] of all.entries()) {
    const user = users[handle]!;
    await prisma.post.create({
      data: {
        authorId: user.id,
        content: `a reply by ${handle}`,
        replyToId: postOf.okay!,
        createdAt: new Date(Date.UTC(2026, 10, 20, 11, 0, i)),
      },
    });
    const follow = (from: SessionUser, to: SessionUser) =>
      prisma.follow.create({
        data: {
          followerKey: `local:${from.id}`,
          followerUserId: from.id,
          followeeKey: `local:${to.id}`,
          followeeUserId: to.id,
          state: 'accepted',
        },
      });
    if (handle !== 'okay') await follow(user, users.okay!);
    await follow(users.vera!, user);
    await prisma.notification.create({
      data: {
        recipientId: users.vera!.id,
        type: 'like',
        actorKey: `local:${user.id}`,
        actorUserId: user.id,
        actorHandle: handle,
        postId: veraPost.id,
        createdAt: new Date(Date.UTC(2026, 10, 20, 12, 0, 59 - i)),
      },
    });
  }
  // The kinds: each made the way the node makes it.
  await t.node.moderation.reports.setSuspended({ handle: 'vera' }, 'sus', true, 'spam');
  await prisma.user.update({
    where: { id: users.moved!.id },
    data: { movedTo: `moved@beta.test`, movedAt: new Date() },
  });
  // Deleting an account removes its row (docs/protocol.md "The account on its own node").
  await prisma.user.delete({ where: { id: users.gone!.id } });
  await vera().moderation.safety.mute({ target: 'mutie' });
  await vera().moderation.safety.block({ address: 'blockie' });
});

afterAll(async () => {
  await t?.close();
});

describe('every read hides every kind of hidden account', () => {
  it('lists the reads it covers', () => {
    expect(READS.length).toBeGreaterThan(25);
  });

  it.each(READS)('$name', async (read) => {
    const shown = await read.shown();
    const kept = KINDS.filter((kind) => !read.hides.includes(kind)).map((k) => HANDLE[k]);
    if (typeof shown === 'number') {
      expect(shown).toBe(1 + kept.length); // okay and the kinds it need not hide
      return;
    }
    // The control and every kind it need not hide are there; the hidden ones are not.
    expect(shown).toContain(read.control ?? 'okay');
    for (const kind of read.hides) expect(shown, kind).not.toContain(HANDLE[kind]);
    for (const handle of kept) expect(shown, handle).toContain(handle);
  });
});

describe('what a direct read of a moved, muted or blocked person says', () => {
  it('a moved account points to its new address', async () => {
    const { profile } = await anon().profiles.get({ address: 'moved' });
    expect(profile.movedTo).toBe('moved@beta.test');
  });

  it('the profile of someone vera muted or blocked says so (to undo it there)', async () => {
    const muted = await vera().profiles.get({ address: 'mutie' });
    expect(muted.profile.viewer).toMatchObject({ muted: true, blocked: false });
    const blocked = await vera().profiles.get({ address: 'blockie' });
    expect(blocked.profile.viewer).toMatchObject({ muted: false, blocked: true });
    const other = await vera().profiles.get({ address: 'okay' });
    expect(other.profile.viewer).toMatchObject({ muted: false, blocked: false });
    await vera().moderation.safety.unmute({ target: 'mutie' });
    const unmuted = await vera().profiles.get({ address: 'mutie' });
    expect(unmuted.profile.viewer).toMatchObject({ muted: false });
    await vera().moderation.safety.mute({ target: 'mutie' });
  });
});
