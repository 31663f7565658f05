import { describe, expect, it } from 'vitest';
import { findHashtags, normaliseHashtag } from './hashtags.ts';

describe('hashtags', () => {
  it('finds tags once, lower-cased, not inside words, paths, entities or numbers', () => {
    expect(findHashtags('#Rust and #rust, #web_dev. a#no /x#no &#38; #123 #_ok #a1')).toEqual([
      'rust',
      'web_dev',
      '_ok',
      'a1',
    ]);
    expect(findHashtags(`#${'a'.repeat(64)} #${'b'.repeat(65)}`)).toEqual(['a'.repeat(64)]);
  });

  it('normalises what people type on a tag page', () => {
    expect(normaliseHashtag('#Rust')).toBe('rust');
    expect(normaliseHashtag(' web_dev ')).toBe('web_dev');
    for (const bad of ['', '#', '123', 'a b', 'é', 'x'.repeat(65), "'; drop table posts"]) {
      expect(normaliseHashtag(bad), bad).toBeNull();
    }
  });
});
