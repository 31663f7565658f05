import { exportPublicKeyPem, generateSigningKeyPair, publicKeyToDidKey } from '@swarm/contract';
import type { Db, Prisma } from '@swarm/db';
import type { Clock } from '../clock.ts';
import type { Logger } from '../logger.ts';

/**
 * `SWARM_DEMO_CONTENT=1`: a fresh node gets a few clearly marked demo accounts (bots whose bio
 * starts with "Demo account"), posts that show what the wire shapes carry (media with alt text,
 * an NSFW post, a link preview) and a short reply thread. First start only: the demo users are
 * the marker, so a second start (or a second replica starting at the same time) adds nothing.
 */

export const DEMO_HANDLES = ['demo_ada', 'demo_bruno', 'demo_chen'] as const;
type DemoHandle = (typeof DEMO_HANDLES)[number];

interface DemoUser {
  handle: DemoHandle;
  displayName: string;
  bio: string;
}

interface DemoPost {
  key: string;
  author: DemoHandle;
  /** Minutes before the seeding time: distinct values keep ordering deterministic. */
  minutesAgo: number;
  content: string;
  replyTo?: string;
  isNsfw?: boolean;
  media?: { url: string; mimeType: string; altText: string }[];
  linkPreview?: { url: string; title: string; description: string };
}

const DEMO_USERS: readonly DemoUser[] = [
  {
    handle: 'demo_ada',
    displayName: 'Ada (demo)',
    bio: 'Demo account: seeded by SWARM_DEMO_CONTENT to show what a node looks like. Not a person.',
  },
  {
    handle: 'demo_bruno',
    displayName: 'Bruno (demo)',
    bio: 'Demo account: posts examples of media and content warnings. Not a person.',
  },
  {
    handle: 'demo_chen',
    displayName: 'Chen (demo)',
    bio: 'Demo account: shares links and answers threads. Not a person.',
  },
];

const DEMO_POSTS: readonly DemoPost[] = [
  {
    key: 'welcome',
    author: 'demo_ada',
    minutesAgo: 60,
    content:
      'Welcome to this swarm node! This is demo content: the node finds its peers through seeds and gossip, and people here can follow people anywhere in the swarm.',
  },
  {
    key: 'photo',
    author: 'demo_bruno',
    minutesAgo: 50,
    content: 'Demo post with an image attached by URL, with alt text for screen readers.',
    media: [
      {
        url: 'https://picsum.photos/id/1018/1200/800',
        mimeType: 'image/jpeg',
        altText: 'A mountain valley under a cloudy sky (demo image).',
      },
    ],
  },
  {
    key: 'nsfw',
    author: 'demo_bruno',
    minutesAgo: 40,
    isNsfw: true,
    content:
      'Demo post marked NSFW: nodes and apps hide it behind a click-through. Nothing shocking here, it only shows the flag.',
  },
  {
    key: 'link',
    author: 'demo_chen',
    minutesAgo: 30,
    content:
      'Demo post with a link preview. How do nodes learn about each other? https://en.wikipedia.org/wiki/Gossip_protocol',
    linkPreview: {
      url: 'https://en.wikipedia.org/wiki/Gossip_protocol',
      title: 'Gossip protocol',
      description:
        'A procedure of computer peer-to-peer communication based on the way epidemics spread.',
    },
  },
  {
    key: 'reply-bruno',
    author: 'demo_bruno',
    minutesAgo: 20,
    replyTo: 'welcome',
    content: 'Hello Ada! (a demo reply)',
  },
  {
    key: 'reply-chen',
    author: 'demo_chen',
    minutesAgo: 15,
    replyTo: 'welcome',
    content: 'Replies are listed oldest first under the post. (demo)',
  },
  {
    key: 'reply-ada',
    author: 'demo_ada',
    minutesAgo: 10,
    replyTo: 'link',
    content: 'Good read: each round, every node talks to a few random peers. (demo)',
  },
];

export interface DemoContentReport {
  /** False when demo users already existed (a previous start, or another replica won). */
  created: boolean;
  users: string[];
  posts: number;
  replies: number;
}

export interface DemoContentService {
  /** Seeds the demo content unless it is there; safe to call on every start. */
  seed(): Promise<DemoContentReport>;
}

/** Thrown inside the transaction to roll it back when the marker shows the content exists. */
class AlreadySeeded extends Error {}

const TX_OPTIONS = { maxWait: 15_000, timeout: 30_000 } as const;

/** A did:key for a demo account. Its private half is dropped: demo accounts never sign. */
async function demoIdentity(): Promise<{ did: string; publicKey: string }> {
  const pair = await generateSigningKeyPair();
  return {
    did: await publicKeyToDidKey(pair.publicKey),
    publicKey: await exportPublicKeyPem(pair.publicKey),
  };
}

export function createDemoContentService(deps: {
  db: Db;
  clock: Clock;
  logger: Logger;
}): DemoContentService {
  const { db, clock, logger } = deps;
  const nothing: DemoContentReport = { created: false, users: [], posts: 0, replies: 0 };

  async function insertAll(
    tx: Prisma.TransactionClient,
    now: Date,
    identities: readonly { did: string; publicKey: string }[],
  ): Promise<DemoContentReport> {
    // ON CONFLICT DO NOTHING: a replica seeding at the same moment waits for ours, then gets
    // fewer rows back and rolls back instead of failing on the unique handle.
    const users = await tx.user.createManyAndReturn({
      data: DEMO_USERS.map((user, i) => ({
        ...user,
        ...identities[i],
        isBot: true,
        createdAt: new Date(now.getTime() - 2 * 60 * 60 * 1000),
        // Not a password hash: nobody can log in as a demo account.
        passwordHash: '!demo-account',
      })),
      skipDuplicates: true,
      select: { id: true, handle: true },
    });
    if (users.length !== DEMO_USERS.length) throw new AlreadySeeded();
    const userIds = new Map(users.map((u) => [u.handle, u.id]));

    const postIds = new Map<string, string>();
    let replies = 0;
    for (const post of DEMO_POSTS) {
      const authorId = userIds.get(post.author)!;
      const replyToId = post.replyTo ? postIds.get(post.replyTo)! : null;
      const created = await tx.post.create({
        data: {
          authorId,
          content: post.content,
          isNsfw: post.isNsfw ?? false,
          replyToId,
          linkPreviewUrl: post.linkPreview?.url ?? null,
          linkPreviewTitle: post.linkPreview?.title ?? null,
          linkPreviewDescription: post.linkPreview?.description ?? null,
          createdAt: new Date(now.getTime() - post.minutesAgo * 60 * 1000),
          media: post.media
            ? { create: post.media.map((item, position) => ({ ...item, position })) }
            : undefined,
        },
        select: { id: true },
      });
      postIds.set(post.key, created.id);
      await tx.user.update({ where: { id: authorId }, data: { postsCount: { increment: 1 } } });
      if (replyToId) {
        replies += 1;
        await tx.post.update({
          where: { id: replyToId },
          data: { repliesCount: { increment: 1 } },
        });
      }
    }
    return {
      created: true,
      users: users.map((u) => u.handle),
      posts: DEMO_POSTS.length - replies,
      replies,
    };
  }

  return {
    async seed() {
      const existing = await db.prisma.user.count({ where: { handle: { in: [...DEMO_HANDLES] } } });
      if (existing > 0) {
        logger.info('Demo content: already present, nothing added.');
        return nothing;
      }
      const identities = await Promise.all(DEMO_USERS.map(() => demoIdentity()));
      try {
        const report = await db.prisma.$transaction(
          (tx) => insertAll(tx, clock.now(), identities),
          TX_OPTIONS,
        );
        logger.info(
          { users: report.users, posts: report.posts, replies: report.replies },
          `Demo content: created ${report.users.length} demo users, ${report.posts} posts and ${report.replies} replies.`,
        );
        return report;
      } catch (error) {
        if (!(error instanceof AlreadySeeded)) throw error;
        logger.info('Demo content: already present, nothing added.');
        return nothing;
      }
    },
  };
}
