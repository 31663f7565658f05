import { describe, expect, it } from 'vitest';
import { pushedPostSchema } from '@swarm/contract';
import { pushedPostOf } from './post-push-body.ts';
import { engagementLevel } from './post-repush.ts';

const base = {
  id: '0d5b2f5e-6c11-4a55-9b8a-2d4f0f0a1c33',
  content: 'hello',
  createdAt: new Date('2026-11-27T23:00:00.123Z'),
  isNsfw: false,
  visibility: 'public' as const,
  replyToId: null,
  media: [],
  linkPreview: null,
};

describe('pushedPostOf', () => {
  it('leaves absent values out, never null or ""', () => {
    expect(pushedPostOf(base)).toEqual({
      id: base.id,
      content: 'hello',
      createdAt: '2026-11-27T23:00:00.123Z',
      isNsfw: false,
      visibility: 'public',
    });
    const empty = pushedPostOf({
      ...base,
      linkPreview: { url: null, title: '', description: null, image: '' },
    });
    expect(Object.keys(empty)).not.toContain('linkPreviewTitle');
    expect(Object.keys(empty)).not.toContain('linkPreviewImage');
  });

  it('carries the parent, media and card in the contract shape', () => {
    const post = pushedPostOf({
      ...base,
      visibility: 'followers',
      replyToId: 'swarm:beta.test:9a3e1c62-7f0b-4a6e-8d2c-1b5f4e3a2d10',
      media: [
        {
          url: 'https://alpha.test/media/uploads/a.webp',
          mimeType: 'image/webp',
          altText: 'a cat',
        },
        { url: 'https://img.example/b.png', mimeType: null, altText: '' },
        { url: 'javascript:alert(1)', mimeType: 'image/png', altText: 'dropped' },
      ],
      linkPreview: {
        url: 'https://news.example/story',
        title: 'A story',
        description: 'What happened',
        image: 'https://news.example/story.jpg',
      },
    });
    expect(post).toMatchObject({
      visibility: 'followers',
      replyToId: 'swarm:beta.test:9a3e1c62-7f0b-4a6e-8d2c-1b5f4e3a2d10',
      media: [
        {
          url: 'https://alpha.test/media/uploads/a.webp',
          mimeType: 'image/webp',
          altText: 'a cat',
        },
        { url: 'https://img.example/b.png' },
      ],
      linkPreviewUrl: 'https://news.example/story',
      linkPreviewTitle: 'A story',
      linkPreviewDescription: 'What happened',
      linkPreviewImage: 'https://news.example/story.jpg',
    });
    expect(pushedPostSchema.safeParse(post).success).toBe(true);
  });
});

describe('engagementLevel', () => {
  const level = (likesCount: number, repostsCount = 0, repliesCount = 0) =>
    engagementLevel({ likesCount, repostsCount, repliesCount });

  it('counts the thresholds the largest count reached', () => {
    expect([0, 1, 4, 5, 9, 10, 49, 50, 100, 10_000, 99_999].map((n) => level(n))).toEqual([
      0, 1, 1, 2, 2, 3, 3, 4, 5, 9, 9,
    ]);
    expect(level(0, 0, 5)).toBe(2);
    expect(level(1, 10, 5)).toBe(3);
  });
});
