import { describe, expect, it } from 'vitest';
import { postHtml, textAsHtml } from '../src/entities/html.ts';

// Post text as the HTML apps render (docs/clients.md "Statuses"): escaped, paragraphs, and links
// for addresses, tags and the mentions the node can name.

const links = {
  mention: (handle: string, domain: string | null) =>
    handle === 'nobody' ? null : `https://${domain ?? 'here.example'}/@${handle}`,
  tag: (name: string) => `https://here.example/tags/${name}`,
};

describe('postHtml', () => {
  it('escapes everything that is not a link', () => {
    expect(postHtml('<script>"x" & \'y\'</script>', links)).toBe(
      '<p>&lt;script&gt;&quot;x&quot; &amp; &#39;y&#39;&lt;/script&gt;</p>',
    );
  });

  it('links addresses without their closing punctuation, and tags and mentions inside none', () => {
    const html = postHtml('See https://a.example/x#tag?q=@bob. Done', links);
    expect(html).toBe(
      '<p>See <a href="https://a.example/x#tag?q=@bob" rel="nofollow noopener noreferrer" target="_blank">a.example/x#tag?q=@bob</a>. Done</p>',
    );
  });

  it('links tags lower-cased and mentions with or without a domain; unknown people stay text', () => {
    const html = postHtml('#Rust by @ann@b.example and @cat, not @nobody or a#b', links);
    expect(html).toContain(
      '<a href="https://here.example/tags/rust" class="mention hashtag" rel="tag">#<span>Rust</span></a>',
    );
    expect(html).toContain(
      '<a href="https://b.example/@ann" class="u-url mention">@<span>ann</span></a>',
    );
    expect(html).toContain(
      '<a href="https://here.example/@cat" class="u-url mention">@<span>cat</span></a>',
    );
    expect(html).toContain('not @nobody or a#b');
  });

  it('keeps paragraphs and line breaks, and escapes inside links', () => {
    expect(postHtml('one\ntwo\n\nthree', links)).toBe('<p>one<br>two</p><p>three</p>');
    // A quote ends an address (it could not close the attribute anyway).
    expect(postHtml('https://a.example/?a=1&b="2"', links)).toBe(
      '<p><a href="https://a.example/?a=1&amp;b=" rel="nofollow noopener noreferrer" target="_blank">a.example/?a=1&amp;b=</a>&quot;2&quot;</p>',
    );
    expect(textAsHtml('a\n\n\nb')).toBe('<p>a</p><p>b</p>');
  });
});
