import { describe, expect, it } from 'vitest';
import {
  INTERACTION_BODY_SCHEMAS,
  INTERACTION_KINDS,
  followBodySchema,
  interactionResponseSchema,
  likeBodySchema,
  mentionBodySchema,
  replyBodySchema,
  replyResponseSchema,
  repostBodySchema,
  unfollowBodySchema,
  unlikeBodySchema,
} from './interaction-schemas.ts';
import { checkWireShape } from './wire-shape.test-helpers.ts';

const T = '2026-11-22T14:00:00.000Z';
const POST = '6ba7b810-9dad-11d1-80b4-00c04fd430c8';
const SIG = 'MEUCIQDm1-signature-base64url';
const actor = {
  actorHandle: 'alice',
  actorDisplayName: 'Alice',
  actorAvatarUrl: 'https://alpha.example/a.png',
  actorNodeDomain: 'alpha.example',
  interactionId: 'like-0001',
  timestamp: T,
};

const like = { postId: POST, like: actor, signature: SIG };
const unlike = {
  postId: POST,
  unlike: {
    actorHandle: 'alice',
    actorNodeDomain: 'alpha.example',
    interactionId: 'unlike-1',
    timestamp: T,
  },
  signature: SIG,
};
const repost = { postId: POST, repost: { ...actor, repostId: 'r-42' }, signature: SIG };
const follow = {
  targetHandle: 'bob',
  follow: {
    followerHandle: 'alice',
    followerDisplayName: 'Alice',
    followerAvatarUrl: '',
    followerBio: 'hi',
    followerNodeDomain: 'alpha.example:8443',
    interactionId: 'follow-1',
    timestamp: T,
  },
};
const unfollow = {
  targetHandle: 'bob',
  unfollow: {
    followerHandle: 'alice',
    followerNodeDomain: 'alpha.example:8443',
    interactionId: 'unfollow-1',
    timestamp: T,
  },
};
const mention = {
  mentionedHandle: 'bob',
  mention: { ...actor, postId: 'p-7', postContent: 'hi @bob@beta.example' },
};
const reply = {
  postId: POST,
  reply: {
    id: 'reply-1',
    content: 'nice post',
    createdAt: T,
    author: { handle: 'alice', displayName: 'Alice', avatarUrl: '' },
    nodeDomain: 'alpha.example',
    mediaUrls: ['https://alpha.example/m/1.jpg'],
  },
};

const actorRequired = (key: string) =>
  ['actorHandle', 'actorNodeDomain', 'interactionId', 'timestamp'].map((f) => `${key}.${f}`);

describe('like', () => {
  checkWireShape(likeBodySchema, like, {
    required: ['postId', 'like', 'signature', ...actorRequired('like')],
    expected: like,
  });
});

describe('unlike', () => {
  checkWireShape(unlikeBodySchema, unlike, {
    required: ['postId', 'unlike', 'signature', ...actorRequired('unlike')],
    expected: unlike,
  });
});

describe('repost', () => {
  checkWireShape(repostBodySchema, repost, {
    required: ['postId', 'repost', 'signature', 'repost.repostId', ...actorRequired('repost')],
    expected: repost,
  });
});

describe('follow', () => {
  const required = [
    'targetHandle',
    'follow',
    'follow.followerHandle',
    'follow.followerNodeDomain',
    'follow.interactionId',
    'follow.timestamp',
  ];
  checkWireShape(followBodySchema, follow, { required, expected: follow });
  it('takes an optional signature', () => {
    expect(followBodySchema.parse({ ...follow, signature: SIG }).signature).toBe(SIG);
    expect(followBodySchema.safeParse({ ...follow, signature: '' }).success).toBe(false);
  });
  it('fills the optional follower fields', () => {
    const {
      followerDisplayName: _d,
      followerAvatarUrl: _a,
      followerBio: _b,
      ...minimal
    } = follow.follow;
    expect(followBodySchema.parse({ ...follow, follow: minimal }).follow).toEqual({
      ...follow.follow,
      followerDisplayName: '',
      followerBio: '',
    });
  });
});

describe('unfollow', () => {
  const required = [
    'targetHandle',
    'unfollow',
    'unfollow.followerHandle',
    'unfollow.followerNodeDomain',
    'unfollow.interactionId',
    'unfollow.timestamp',
  ];
  checkWireShape(unfollowBodySchema, unfollow, { required, expected: unfollow });
});

describe('mention', () => {
  checkWireShape(mentionBodySchema, mention, {
    required: [
      'mentionedHandle',
      'mention',
      'mention.postId',
      'mention.postContent',
      ...actorRequired('mention'),
    ],
    expected: mention,
  });
});

describe('reply (POST /api/swarm/replies)', () => {
  checkWireShape(replyBodySchema, reply, {
    required: [
      'postId',
      'reply',
      'reply.id',
      'reply.content',
      'reply.createdAt',
      'reply.author',
      'reply.author.handle',
      'reply.nodeDomain',
    ],
    expected: reply,
  });
  it('rejects unusable media URLs and defaults a missing list', () => {
    expect(
      replyBodySchema.safeParse({
        ...reply,
        reply: { ...reply.reply, mediaUrls: ['javascript:x'] },
      }).success,
    ).toBe(false);
    const { mediaUrls: _m, ...noMedia } = reply.reply;
    expect(replyBodySchema.parse({ ...reply, reply: noMedia }).reply.mediaUrls).toEqual([]);
  });
});

describe('interaction bodies: limits and formats', () => {
  it('needs a uuid postId for posts on the receiving node', () => {
    for (const schema of [likeBodySchema, unlikeBodySchema, repostBodySchema]) {
      const body = { like, unlike, repost }[
        schema === likeBodySchema ? 'like' : schema === unlikeBodySchema ? 'unlike' : 'repost'
      ];
      expect(schema.safeParse({ ...body, postId: 'p-1' }).success).toBe(false);
    }
    expect(replyBodySchema.safeParse({ ...reply, postId: '123' }).success).toBe(false);
  });

  it('rejects bad actor handles, domains, timestamps and empty interaction ids', () => {
    expect(
      likeBodySchema.safeParse({ ...like, like: { ...actor, actorHandle: 'a b' } }).success,
    ).toBe(false);
    expect(
      likeBodySchema.safeParse({
        ...like,
        like: { ...actor, actorNodeDomain: 'alpha.example:70000' },
      }).success,
    ).toBe(false);
    expect(
      likeBodySchema.safeParse({ ...like, like: { ...actor, timestamp: 'now' } }).success,
    ).toBe(false);
    expect(
      likeBodySchema.safeParse({ ...like, like: { ...actor, interactionId: '' } }).success,
    ).toBe(false);
  });

  it('dispatches by interaction kind', () => {
    expect(INTERACTION_KINDS).toEqual([
      'like',
      'unlike',
      'repost',
      'follow',
      'unfollow',
      'mention',
    ]);
    expect(INTERACTION_BODY_SCHEMAS.mention.safeParse(mention).success).toBe(true);
  });
});

describe('responses', () => {
  const ok = { success: true, message: 'Like received' };
  checkWireShape(interactionResponseSchema, ok, { required: ['success'], expected: ok });
  it('accepts only success: true', () => {
    expect(interactionResponseSchema.safeParse({ success: false, message: 'x' }).success).toBe(
      false,
    );
  });
  const replied = { success: true, replyId: '0d5b2f5e-6c11-4a55-9b8a-2d4f0f0a1c33' };
  checkWireShape(replyResponseSchema, replied, {
    required: ['success', 'replyId'],
    expected: replied,
  });
});
