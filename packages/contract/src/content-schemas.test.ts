import { describe, expect, it } from 'vitest';
import {
  mediaItemSchema,
  parsePeerSinglePost,
  peerRepliesResponseSchema,
  peerSwarmUserResponseSchema,
  peerTimelineResponseSchema,
  profilePostSchema,
  profileSchema,
  repliesResponseSchema,
  replySchema,
  singlePostAnswerSchema,
  singlePostSchema,
  swarmUserResponseSchema,
  timelinePostSchema,
  timelineResponseSchema,
} from './content-schemas.ts';
import { checkWireShape, withPath, withoutPath } from './wire-shape.test-helpers.ts';

// Example shapes built from the spec's tables, with every field present.
const T = '2026-11-22T14:00:00.000Z';
const POST_ID = '6ba7b810-9dad-11d1-80b4-00c04fd430c8';

const exampleMedia = {
  url: 'https://beta.example/media/1.png',
  mimeType: 'image/png',
  altText: 'a cat',
};

const exampleProfile = {
  handle: 'alice',
  displayName: 'Alice',
  bio: 'Hello',
  avatarUrl: 'https://beta.example/a.png',
  headerUrl: 'https://beta.example/h.png',
  website: 'https://alice.example/',
  followersCount: 3,
  followingCount: 2,
  postsCount: 1,
  createdAt: T,
  isBot: false,
  nodeDomain: 'beta.example',
};

const exampleProfilePost = {
  id: POST_ID,
  content: 'first post',
  createdAt: T,
  isNsfw: false,
  likesCount: 1,
  repostsCount: 0,
  repliesCount: 2,
  media: [exampleMedia],
  linkPreviewUrl: null,
  linkPreviewTitle: '',
  linkPreviewDescription: '',
  linkPreviewImage: '',
};

const exampleAuthor = {
  handle: 'alice',
  displayName: 'Alice',
  avatarUrl: 'https://beta.example/a.png',
  isNsfw: false,
};

const exampleTimelinePost = {
  id: POST_ID,
  content: 'first post',
  createdAt: T,
  author: exampleAuthor,
  nodeDomain: 'beta.example',
  nodeIsNsfw: false,
  isNsfw: false,
  likeCount: 1,
  repostCount: 0,
  replyCount: 2,
  media: [],
  linkPreviewUrl: 'https://news.example/story',
};

const exampleSinglePost = {
  id: POST_ID,
  content: 'a reply',
  createdAt: T,
  author: exampleAuthor,
  nodeDomain: 'beta.example',
  isNsfw: false,
  likesCount: 0,
  repostsCount: 0,
  repliesCount: 0,
  media: [],
  linkPreviewUrl: null,
  replyToId: '0d5b2f5e-6c11-4a55-9b8a-2d4f0f0a1c33',
  repostOfId: null,
};

const exampleReply = {
  id: POST_ID,
  content: 'nice',
  createdAt: T,
  author: { handle: 'bob@gamma.example:8443', displayName: 'Bob', avatarUrl: '' },
  likesCount: 0,
  repostsCount: 0,
  repliesCount: 0,
};

describe('media item', () => {
  checkWireShape(mediaItemSchema, exampleMedia, { required: ['url'], expected: exampleMedia });
  it('requires a usable http(s) URL', () => {
    for (const url of ['', '/relative.png', 'javascript:alert(1)', 'ftp://x.example/a']) {
      expect(mediaItemSchema.safeParse({ ...exampleMedia, url }).success).toBe(false);
    }
    expect(mediaItemSchema.parse({ url: 'http://localhost:3000/m.png' })).toEqual({
      url: 'http://localhost:3000/m.png',
      mimeType: '',
      altText: '',
    });
  });
});

describe('profile', () => {
  checkWireShape(profileSchema, exampleProfile, {
    required: ['handle', 'createdAt', 'nodeDomain'],
    expected: exampleProfile,
  });

  it('fills the full spec shape from a minimal peer profile, and reads null/""/unusable URLs as ""', () => {
    const parsed = profileSchema.parse({
      handle: 'Alice',
      createdAt: '2026-11-22T15:00:00+01:00',
      nodeDomain: 'Beta.Example',
      avatarUrl: null,
      headerUrl: 'javascript:alert(1)',
      website: '',
      bio: null,
    });
    expect(parsed).toEqual({
      handle: 'Alice',
      displayName: '',
      bio: '',
      avatarUrl: '',
      headerUrl: '',
      website: '',
      followersCount: 0,
      followingCount: 0,
      postsCount: 0,
      createdAt: T,
      isBot: false,
      nodeDomain: 'beta.example',
    });
  });

  it('keeps the optional did and publicKey extras', () => {
    const did = 'did:key:zDnaerDaTF5BXEavCrfRZEk316dpbLsfPDZ3WJ5hRTPFU2169';
    expect(profileSchema.parse({ ...exampleProfile, did, publicKey: 'PEM' })).toMatchObject({
      did,
      publicKey: 'PEM',
    });
    expect(profileSchema.parse({ ...exampleProfile, did: null })).not.toHaveProperty('did', null);
    expect(profileSchema.safeParse({ ...exampleProfile, did: 'not-a-did' }).success).toBe(false);
  });

  it('rejects out-of-range values', () => {
    expect(profileSchema.safeParse({ ...exampleProfile, followersCount: -1 }).success).toBe(false);
    expect(profileSchema.safeParse({ ...exampleProfile, postsCount: 1.5 }).success).toBe(false);
    expect(profileSchema.safeParse({ ...exampleProfile, handle: 'a b' }).success).toBe(false);
    expect(
      profileSchema.safeParse({ ...exampleProfile, nodeDomain: 'beta.example:0' }).success,
    ).toBe(false);
    expect(profileSchema.safeParse({ ...exampleProfile, createdAt: '22/11/2026' }).success).toBe(
      false,
    );
  });
});

describe('post as listed in a profile', () => {
  checkWireShape(profilePostSchema, exampleProfilePost, {
    required: ['id', 'content', 'createdAt'],
    expected: exampleProfilePost,
  });

  it('reads linkPreviewUrl "" or missing as null, and keeps a real one', () => {
    expect(
      profilePostSchema.parse({ ...exampleProfilePost, linkPreviewUrl: '' }).linkPreviewUrl,
    ).toBeNull();
    expect(
      profilePostSchema.parse(withoutPath(exampleProfilePost, 'linkPreviewUrl')).linkPreviewUrl,
    ).toBeNull();
    expect(
      profilePostSchema.parse({ ...exampleProfilePost, linkPreviewUrl: 'https://x.example/' })
        .linkPreviewUrl,
    ).toBe('https://x.example/');
  });

  it('rejects a bad media item and a bad id', () => {
    expect(
      profilePostSchema.safeParse({ ...exampleProfilePost, media: [{ url: 42 }] }).success,
    ).toBe(false);
    expect(profilePostSchema.safeParse({ ...exampleProfilePost, id: 'a:b' }).success).toBe(false);
    expect(profilePostSchema.safeParse({ ...exampleProfilePost, id: '' }).success).toBe(false);
  });
});

describe('post as listed in the timeline (singular count names)', () => {
  checkWireShape(timelinePostSchema, exampleTimelinePost, {
    required: ['id', 'content', 'createdAt', 'author', 'author.handle', 'nodeDomain'],
    expected: exampleTimelinePost,
  });

  it('uses likeCount/repostCount/replyCount, not the plural names', () => {
    const parsed = timelinePostSchema.parse({ ...exampleTimelinePost, likesCount: 9 });
    expect(parsed.likeCount).toBe(1);
    expect(parsed).not.toHaveProperty('likesCount');
    expect(timelinePostSchema.safeParse({ ...exampleTimelinePost, likeCount: -1 }).success).toBe(
      false,
    );
  });
});

describe('single post', () => {
  checkWireShape(singlePostSchema, exampleSinglePost, {
    required: ['id', 'content', 'createdAt', 'author', 'author.handle', 'nodeDomain'],
    expected: exampleSinglePost,
  });

  it('has nullable replyToId and repostOfId (missing and "" read as null)', () => {
    const parsed = singlePostSchema.parse({
      ...withoutPath(exampleSinglePost, 'replyToId'),
      repostOfId: '',
    });
    expect(parsed.replyToId).toBeNull();
    expect(parsed.repostOfId).toBeNull();
    expect(
      singlePostSchema.parse({ ...exampleSinglePost, repostOfId: 'swarm:gamma.example:p1' })
        .repostOfId,
    ).toBe('swarm:gamma.example:p1');
  });

  it('parsePeerSinglePost reads the bare form and the { post } variant', () => {
    expect(parsePeerSinglePost(exampleSinglePost, 'beta.example')).toEqual({
      ok: true,
      value: exampleSinglePost,
    });
    expect(parsePeerSinglePost({ post: exampleSinglePost }, 'beta.example')).toEqual({
      ok: true,
      value: exampleSinglePost,
    });
    const bad = parsePeerSinglePost(
      { post: { ...exampleSinglePost, likesCount: 'x' } },
      'beta.example',
    );
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.reason).toMatch(/^post: likesCount/);
    const junk = parsePeerSinglePost('nope', 'beta.example');
    expect(junk.ok).toBe(false);
    if (!junk.ok) expect(junk.reason.length).toBeGreaterThan(0);
  });

  it('parsePeerSinglePost reads the origin form: { post, replies } without nodeDomain', () => {
    // The origin's post: no nodeDomain, isNsfw, replyToId nor author.isNsfw; extra members.
    const { nodeDomain: _domain, isNsfw: _nsfw, replyToId: _reply, ...rest } = exampleSinglePost;
    const originPost = {
      ...rest,
      apId: 'https://origin.example/posts/1',
      author: { handle: 'alice', displayName: 'Alice', avatarUrl: null },
      media: [{ url: exampleMedia.url, altText: 'a cat' }],
      linkPreviewTitle: null,
    };
    const parsed = parsePeerSinglePost({ post: originPost, replies: [] }, 'origin.example');
    expect(parsed).toEqual({
      ok: true,
      value: {
        ...exampleSinglePost,
        nodeDomain: 'origin.example',
        author: { handle: 'alice', displayName: 'Alice', avatarUrl: '', isNsfw: false },
        media: [{ url: exampleMedia.url, mimeType: '', altText: 'a cat' }],
        replyToId: null,
      },
    });
    // A nodeDomain the post names is kept (the reader decides what to trust).
    expect(
      parsePeerSinglePost({ post: { ...originPost, nodeDomain: 'gamma.example' } }, 'o.example'),
    ).toMatchObject({ ok: true, value: { nodeDomain: 'gamma.example' } });
    // Our own answer (bare plus `post` and `replies`) reads as the bare post.
    const ours = { ...exampleSinglePost, post: exampleSinglePost, replies: [exampleReply] };
    expect(parsePeerSinglePost(ours, 'beta.example')).toEqual({
      ok: true,
      value: exampleSinglePost,
    });
    expect(singlePostAnswerSchema.parse(ours)).toEqual(ours);
  });
});

describe('reply as listed by GET /api/swarm/replies', () => {
  checkWireShape(replySchema, exampleReply, {
    required: ['id', 'content', 'createdAt', 'author', 'author.handle'],
    expected: exampleReply,
  });
  it('accepts local plain handles and remote handle@domain authors', () => {
    expect(replySchema.parse(withPath(exampleReply, 'author.handle', 'bob')).author.handle).toBe(
      'bob',
    );
    expect(replySchema.safeParse(withPath(exampleReply, 'author.handle', 'bob@')).success).toBe(
      false,
    );
  });
});

describe('responses', () => {
  describe('GET /api/swarm/users/[handle]', () => {
    const example = {
      profile: exampleProfile,
      posts: [exampleProfilePost],
      nodeDomain: 'beta.example',
      timestamp: T,
    };
    checkWireShape(swarmUserResponseSchema, example, {
      required: ['profile', 'nodeDomain', 'timestamp', 'profile.handle'],
      expected: example,
    });
    it('peerSwarmUserResponseSchema sets the origin\'s reposts (content "", repostOfId) apart', () => {
      const originRepost = { ...exampleProfilePost, id: 'r1', content: '', repostOfId: 'x-1' };
      const own = { ...exampleProfilePost, repostOfId: null, originalPostId: null };
      expect(peerSwarmUserResponseSchema.parse({ ...example, posts: [originRepost, own] })).toEqual(
        {
          ...example,
          reposts: [{ id: 'r1', createdAt: exampleProfilePost.createdAt, repostOfId: 'x-1' }],
        },
      );
      expect(peerSwarmUserResponseSchema.parse(example)).toEqual({ ...example, reposts: [] });
      expect(
        peerSwarmUserResponseSchema.safeParse({ ...example, posts: [{ ...own, repostOfId: 5 }] })
          .success,
      ).toBe(false);
    });
    it('accepts a profile with no posts (limit=0)', () => {
      expect(swarmUserResponseSchema.parse({ ...example, posts: [] }).posts).toEqual([]);
    });
  });

  describe('GET /api/swarm/timeline', () => {
    const example = {
      posts: [exampleTimelinePost],
      nodeDomain: 'beta.example',
      nodeIsNsfw: false,
      timestamp: T,
    };
    checkWireShape(timelineResponseSchema, example, {
      required: ['nodeDomain', 'timestamp'],
      expected: example,
    });
    it("peerTimelineResponseSchema leaves out the origin's reposts (repostOfId)", () => {
      const repost = { ...exampleTimelinePost, content: '', repostOfId: 'x-1' };
      const own = { ...exampleTimelinePost, repostOfId: null, isReply: false };
      expect(peerTimelineResponseSchema.parse({ ...example, posts: [repost, own] })).toEqual(
        example,
      );
    });
  });

  describe('GET /api/swarm/replies', () => {
    const example = { replies: [exampleReply], nodeDomain: 'beta.example' };
    checkWireShape(repliesResponseSchema, example, { required: ['nodeDomain'], expected: example });
    it('peerRepliesResponseSchema reads the origin shape into the spec shape', () => {
      const origin = {
        postId: POST_ID,
        nodeDomain: 'origin.example',
        replies: [
          {
            id: POST_ID,
            content: 'from the origin itself',
            createdAt: T,
            author: { handle: 'carol', displayName: 'Carol' },
            nodeDomain: 'origin.example',
            likeCount: 2,
            repostCount: 1,
            replyCount: 3,
          },
          {
            id: 'r2',
            content: 'a reply it received from beta',
            createdAt: T,
            author: { handle: 'bob', displayName: 'Bob', avatarUrl: '' },
            nodeDomain: 'Beta.Example',
            likeCount: 0,
            repostCount: 0,
            replyCount: 0,
          },
        ],
      };
      const parsed = peerRepliesResponseSchema.parse(origin);
      expect(parsed).toEqual({
        nodeDomain: 'origin.example',
        replies: [
          {
            id: POST_ID,
            content: 'from the origin itself',
            createdAt: T,
            author: { handle: 'carol', displayName: 'Carol', avatarUrl: '' },
            likesCount: 2,
            repostsCount: 1,
            repliesCount: 3,
          },
          {
            id: 'r2',
            content: 'a reply it received from beta',
            createdAt: T,
            author: { handle: 'bob@beta.example', displayName: 'Bob', avatarUrl: '' },
            likesCount: 0,
            repostsCount: 0,
            repliesCount: 0,
          },
        ],
      });
      // The spec shape reads unchanged; plural names win over singular ones.
      const spec = { replies: [exampleReply], nodeDomain: 'beta.example' };
      expect(peerRepliesResponseSchema.parse(spec)).toEqual(spec);
      expect(
        peerRepliesResponseSchema.parse({
          ...spec,
          replies: [{ ...exampleReply, likeCount: 99 }],
        }).replies[0]!.likesCount,
      ).toBe(exampleReply.likesCount);
      // A wrongly typed count is still refused.
      expect(
        peerRepliesResponseSchema.safeParse({
          ...spec,
          replies: [{ ...exampleReply, likesCount: undefined, likeCount: 'x' }],
        }).success,
      ).toBe(false);
    });
    it('rejects a malformed reply entry', () => {
      expect(
        repliesResponseSchema.safeParse({
          ...example,
          replies: [{ ...exampleReply, createdAt: 'x' }],
        }).success,
      ).toBe(false);
    });
  });
});
