import { describe, expect, it } from 'vitest';
import { mentions } from './origin-evidence.ts';

describe('mentions (the address a mention must name to be confirmed)', () => {
  it('finds the whole address, any case, at the end of a sentence too', () => {
    expect(mentions('hi @bob@a.example', 'bob', 'a.example')).toBe(true);
    expect(mentions('(@Bob@A.Example), hi', 'bob', 'a.example')).toBe(true);
    expect(mentions('see @bob@a.example.', 'bob', 'a.example')).toBe(true);
    expect(mentions('@bob@localhost:4000!', 'bob', 'localhost:4000')).toBe(true);
  });

  it('refuses another node, another person, or a longer address', () => {
    expect(mentions('hi @bob@b.example', 'bob', 'a.example')).toBe(false);
    expect(mentions('hi @bob@a.example.org', 'bob', 'a.example')).toBe(false);
    expect(mentions('hi @bob@a.example-x.org', 'bob', 'a.example')).toBe(false);
    expect(mentions('hi @bob@a.example:4000', 'bob', 'a.example')).toBe(false);
    expect(mentions('hi @bobby@a.example', 'bob', 'a.example')).toBe(false);
    expect(mentions('hi @x@bob@a.example', 'bob', 'a.example')).toBe(false);
    expect(mentions('hi @bob', 'bob', 'a.example')).toBe(false);
  });
});
