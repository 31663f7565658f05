import { describe, expect, it } from 'vitest';
import {
  absoluteTime,
  actionMessage,
  countLabel,
  parseContent,
  relativeTime,
  safeHttpUrl,
} from '../src/lib/format.ts';
import { readPostForm } from '../src/lib/server/post-form.ts';

const here = { postDomain: 'alpha.example', localDomain: 'alpha.example' };
const remote = { postDomain: 'beta.example:4102', localDomain: 'alpha.example' };

describe('parseContent', () => {
  it('links #tags to their tag page, lower-cased, and leaves URL fragments, entities and #1 alone', () => {
    expect(parseContent('Learning #Rust, #web_dev! #1 a#b &#38; x', here)).toEqual([
      { kind: 'text', text: 'Learning ' },
      { kind: 'tag', text: '#Rust', href: '/tags/rust' },
      { kind: 'text', text: ', ' },
      { kind: 'tag', text: '#web_dev', href: '/tags/web_dev' },
      { kind: 'text', text: '! #1 a#b &#38; x' },
    ]);
    expect(parseContent('see https://x.example/a#top', here)).toEqual([
      { kind: 'text', text: 'see ' },
      { kind: 'link', text: 'https://x.example/a#top', href: 'https://x.example/a#top' },
    ]);
    // Longer than 64 characters: not a tag.
    const long = `#${'a'.repeat(65)}`;
    expect(parseContent(long, here)).toEqual([{ kind: 'text', text: long }]);
  });

  it('links local and remote mentions to profile paths relative to the post node', () => {
    expect(parseContent('hi @carol and @bob@beta.example:4102!', here)).toEqual([
      { kind: 'text', text: 'hi ' },
      { kind: 'mention', text: '@carol', href: '/@carol' },
      { kind: 'text', text: ' and ' },
      { kind: 'mention', text: '@bob@beta.example:4102', href: '/@bob@beta.example:4102' },
      { kind: 'text', text: '!' },
    ]);
    // A bare @dave in a post from beta means dave on beta; @erin@alpha is someone here.
    expect(parseContent('@dave @erin@alpha.example', remote)).toEqual([
      { kind: 'mention', text: '@dave', href: '/@dave@beta.example:4102' },
      { kind: 'text', text: ' ' },
      { kind: 'mention', text: '@erin@alpha.example', href: '/@erin' },
    ]);
  });

  it('leaves e-mail addresses and sentence punctuation alone', () => {
    expect(parseContent('mail me@example.com.', here)).toEqual([
      { kind: 'text', text: 'mail me@example.com.' },
    ]);
    expect(parseContent('see @ada.', here)).toEqual([
      { kind: 'text', text: 'see ' },
      { kind: 'mention', text: '@ada', href: '/@ada' },
      { kind: 'text', text: '.' },
    ]);
  });

  it('links http(s) URLs without trailing punctuation and never other schemes', () => {
    expect(parseContent('(read https://x.example/a?b=1.) javascript:alert(1)', here)).toEqual([
      { kind: 'text', text: '(read ' },
      { kind: 'link', text: 'https://x.example/a?b=1', href: 'https://x.example/a?b=1' },
      { kind: 'text', text: '.) javascript:alert(1)' },
    ]);
    expect(parseContent('https://x.example/@bob is a link', here)[0]).toEqual({
      kind: 'link',
      text: 'https://x.example/@bob',
      href: 'https://x.example/@bob',
    });
  });

  it('keeps markup as text (rendered as text nodes, never HTML)', () => {
    expect(parseContent('<img src=x onerror=alert(1)>', here)).toEqual([
      { kind: 'text', text: '<img src=x onerror=alert(1)>' },
    ]);
  });
});

describe('small formatters', () => {
  it('counts with the right plural', () => {
    expect(countLabel(1, 'like')).toBe('1 like');
    expect(countLabel(3, 'like')).toBe('3 likes');
    expect(countLabel(0, 'reply', 'replies')).toBe('0 replies');
  });

  it('says how long ago, then the date', () => {
    const now = Date.parse('2026-11-23T12:00:00.000Z');
    expect(relativeTime('2026-11-23T11:59:30.000Z', now)).toBe('just now');
    expect(relativeTime('2026-11-23T11:55:00.000Z', now)).toBe('5 min ago');
    expect(relativeTime('2026-11-23T09:00:00.000Z', now)).toBe('3 h ago');
    expect(relativeTime('2026-11-21T12:00:00.000Z', now)).toBe('2 d ago');
    expect(relativeTime('2026-10-01T12:00:00.000Z', now)).toBe('2026-10-01');
    expect(absoluteTime('2026-10-01T12:34:56.000Z')).toBe('2026-10-01 12:34 UTC');
  });

  it('accepts only http(s) URLs', () => {
    expect(safeHttpUrl('https://a.example/x')).toBe('https://a.example/x');
    expect(safeHttpUrl('javascript:alert(1)')).toBeNull();
    expect(safeHttpUrl('not a url')).toBeNull();
    expect(safeHttpUrl(null)).toBeNull();
  });

  it('puts the delivery summary after the action', () => {
    expect(actionMessage('Liked', null)).toBe('Liked.');
    expect(
      actionMessage('Liked', { targetDomain: 'beta.example', summary: 'retrying, next in 4 min' }),
    ).toBe('Liked. beta.example: retrying, next in 4 min');
  });
});

describe('readPostForm', () => {
  it('drops blank media rows and maps the optional fields', () => {
    const form = new FormData();
    form.set('content', 'hello');
    form.append('mediaUrl', 'https://img.example/a.png');
    form.append('mediaAlt', ' a cat ');
    form.append('mediaUrl', '  ');
    form.append('mediaAlt', '');
    form.set('isNsfw', 'on');
    form.set('previewUrl', 'https://news.example/');
    form.set('previewTitle', 'News');
    form.set('previewDescription', '');
    expect(readPostForm(form)).toEqual({
      content: 'hello',
      media: [{ url: 'https://img.example/a.png', altText: 'a cat' }],
      isNsfw: true,
      linkPreview: { url: 'https://news.example/', title: 'News' },
    });
  });

  it('leaves out what was not filled in', () => {
    const form = new FormData();
    form.set('content', 'just text');
    expect(readPostForm(form)).toEqual({ content: 'just text' });
  });

  it('reads the audience and the browser signature (all three fields, or none)', () => {
    const form = new FormData();
    form.set('content', 'signed');
    form.set('visibility', 'followers');
    form.set('signedPostId', '0d5b2f5e-6c11-4a55-9b8a-2d4f0f0a1c33');
    form.set('signedPostAt', '2026-11-27T23:00:00.000Z');
    expect(readPostForm(form)).toEqual({ content: 'signed', visibility: 'followers' });
    form.set('postSignature', 'c2ln');
    expect(readPostForm(form)).toEqual({
      content: 'signed',
      visibility: 'followers',
      signed: {
        id: '0d5b2f5e-6c11-4a55-9b8a-2d4f0f0a1c33',
        createdAt: '2026-11-27T23:00:00.000Z',
        signature: 'c2ln',
      },
    });
    form.set('visibility', 'everyone');
    expect(readPostForm(form).visibility).toBeUndefined();
  });
});
