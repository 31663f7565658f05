import { describe, expect, it } from 'vitest';
import { replySchema } from '@swarm/contract';
import { safeUrl, toMediaItems, toReply } from './content-mappers.ts';

const replyRow = {
  id: '7b0c3c57-4b1c-4a53-9d1c-2f6d2b3f1a10',
  content: 'hi',
  createdAt: new Date('2026-11-22T12:00:00.000Z'),
  likesCount: 0,
  repostsCount: 0,
  repliesCount: 0,
  author: null,
  remoteAuthor: null,
};

describe('content mappers', () => {
  it('sends only absolute http(s) URLs', () => {
    expect(safeUrl('https://a.example/x.png')).toBe('https://a.example/x.png');
    expect(safeUrl('javascript:alert(1)')).toBe('');
    expect(safeUrl('/relative.png')).toBe('');
    expect(safeUrl(null)).toBe('');
  });

  it('leaves out media that cannot be fetched', () => {
    expect(
      toMediaItems([
        { url: 'ftp://a.example/x', mimeType: 'image/png', altText: '', blurhash: null },
        { url: 'https://a.example/y.png', mimeType: 'image/png', altText: 'y', blurhash: 'LEHV6n' },
      ]),
    ).toEqual([{ url: 'https://a.example/y.png', mimeType: 'image/png', altText: 'y' }]);
  });

  it('names remote reply authors handle@domain, in the contract shape', () => {
    const reply = toReply({
      ...replyRow,
      remoteAuthor: {
        handle: 'Carol',
        nodeDomain: 'beta.example:8443',
        displayName: 'C',
        avatarUrl: null,
      },
    });
    expect(reply?.author).toEqual({
      handle: 'Carol@beta.example:8443',
      displayName: 'C',
      avatarUrl: '',
    });
    expect(replySchema.parse(reply)).toEqual(reply);
  });

  it('skips a row without any author', () => {
    expect(toReply(replyRow)).toBeNull();
  });
});
