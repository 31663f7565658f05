import { describe, expect, it } from 'vitest';
import { originPostPushSchema, postPushSchema } from '@swarm/contract';
import { pushedPostView } from './inbox-post-view.ts';

// How a pushed post becomes the view the remote post store keeps (the swarm tests store them
// through the front door; these pin the mapping's edge cases).

const NOW = new Date('2026-11-27T12:00:00.000Z');
const ZERO = { likesCount: 0, repostsCount: 0, repliesCount: 0 };

const ours = (post: Record<string, unknown>, author: Record<string, unknown> = {}) =>
  postPushSchema.parse({
    post: { id: 'p1', content: 'hi', createdAt: '2026-11-27T11:00:00.000Z', ...post },
    author: { handle: 'bob', ...author },
    nodeDomain: 'beta.test',
    timestamp: NOW.toISOString(),
  });

describe('pushedPostView', () => {
  it('names the copy swarm:{domain}:{id} with a remote author, and keeps the given counts', () => {
    const view = pushedPostView(
      ours({}),
      { likesCount: 2, repostsCount: 1, repliesCount: 0 },
      'alpha.test',
    );
    expect(view).toMatchObject({
      id: 'swarm:beta.test:p1',
      path: '/posts/swarm:beta.test:p1',
      author: {
        handle: 'bob',
        domain: 'beta.test',
        address: 'bob@beta.test',
        displayName: 'bob',
        isRemote: true,
      },
      createdAt: '2026-11-27T11:00:00.000Z',
      likesCount: 2,
      repostsCount: 1,
      isRemote: true,
      nodeDomain: 'beta.test',
      replyToId: null,
    });
  });

  it('guesses a missing media type, and keeps only http(s) media and cards', () => {
    const view = pushedPostView(
      ours({
        media: [
          { url: 'https://m.example/a.webp' },
          { url: 'https://m.example/v.mp4', mimeType: 'video/mp4', altText: 'v' },
        ],
        linkPreviewUrl: 'javascript:alert(1)',
      }),
      ZERO,
      'alpha.test',
    );
    expect(view.media).toEqual([
      { url: 'https://m.example/a.webp', mimeType: 'image/webp', altText: '' },
      { url: 'https://m.example/v.mp4', mimeType: 'video/mp4', altText: 'v' },
    ]);
    expect(view.linkPreview).toBeNull();
  });

  it('reads replyToId as an id on the pushing node, or a swarm: id (bare when it is ours)', () => {
    const local = pushedPostView(ours({ replyToId: 'p0' }), ZERO, 'alpha.test');
    expect(local.replyToId).toBe('swarm:beta.test:p0');
    const here = pushedPostView(ours({ replyToId: 'swarm:alpha.test:mine' }), ZERO, 'alpha.test');
    expect(here.replyToId).toBe('mine');
    const junk = pushedPostView(ours({ replyToId: 'swarm:nope' }), ZERO, 'alpha.test');
    expect(junk.replyToId).toBeNull();
  });

  it('marks the post NSFW when the origin says the author is', () => {
    const push = originPostPushSchema.parse({
      post: { id: 'o1', content: 'x', createdAt: '2026-11-27T11:00:00.000Z', isNsfw: false },
      author: { handle: 'olga', displayName: 'Olga', isNsfw: true },
      nodeDomain: 'origin.example',
      timestamp: NOW.toISOString(),
      signature: 'sig',
    });
    expect(pushedPostView(push, ZERO, 'alpha.test')).toMatchObject({
      isNsfw: true,
      author: { displayName: 'Olga' },
    });
  });
});
