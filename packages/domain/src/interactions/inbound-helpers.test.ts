import { describe, expect, it } from 'vitest';
import { excerpt, guessMimeType } from './inbound-helpers.ts';

describe('excerpt', () => {
  it('keeps short text and cuts long text on code points', () => {
    expect(excerpt('hello', 10)).toBe('hello');
    expect(excerpt('abcdef', 4)).toBe('abc…');
    expect(excerpt('😀😀😀😀😀', 3)).toBe('😀😀…');
  });
});

describe('guessMimeType', () => {
  it('guesses from the extension, ignoring the query', () => {
    expect(guessMimeType('https://beta.example/media/a.JPG?x=1')).toBe('image/jpeg');
    expect(guessMimeType('https://beta.example/media/clip.webm')).toBe('video/webm');
    expect(guessMimeType('https://beta.example/media/blob')).toBe('application/octet-stream');
    expect(guessMimeType('not a url')).toBe('application/octet-stream');
  });
});
