import { describe, expect, it } from 'vitest';
import { findMentions } from './post-input.ts';

const SELF = 'alpha.test';

describe('findMentions', () => {
  it('finds local and remote mentions once each, in order', () => {
    expect(
      findMentions('Hi @Bob, @carol@beta.test:4102 and @bob again; cc @dora@Gamma.Test.', SELF),
    ).toEqual([
      { handle: 'bob', domain: null },
      { handle: 'carol', domain: 'beta.test:4102' },
      { handle: 'dora', domain: 'gamma.test' },
    ]);
  });

  it('treats this node’s domain as local and ignores e-mail addresses and words', () => {
    expect(findMentions(`@alice@${SELF} mail me at me@example.com or a@b`, SELF)).toEqual([
      { handle: 'alice', domain: null },
    ]);
    expect(findMentions('no mentions here @ all, @-dash, @.dot', SELF)).toEqual([]);
  });

  it('stops at 20 mentions', () => {
    const text = Array.from({ length: 30 }, (_, i) => `@user${i}`).join(' ');
    expect(findMentions(text, SELF)).toHaveLength(20);
  });
});
