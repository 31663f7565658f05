import { HASHTAG_MAX_CHARS } from '@swarm/contract';

/**
 * Post and profile text as the HTML Mastodon clients render. The node stores plain text; apps
 * expect HTML with paragraphs, line breaks and links (addresses, `#tags`, `@people`), so the
 * text is escaped and these are added, nothing else.
 */

const HTML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (ch) => HTML_ESCAPES[ch]!);

/** Paragraphs (blank lines) and line breaks around `line`, which renders one line's HTML. */
function paragraphs(text: string, line: (text: string) => string): string {
  return text
    .split(/\n{2,}/)
    .filter((p) => p.trim() !== '')
    .map((p) => `<p>${p.split('\n').map(line).join('<br>')}</p>`)
    .join('');
}

/** Plain text as HTML (`note`): escaped, paragraphs, line breaks. */
export function textAsHtml(text: string): string {
  return paragraphs(text, escapeHtml);
}

/** A link target the text names, and how the link looks. */
export interface LinkFinder {
  /** `@handle` or `@handle@domain` (domain null: of the post's node): where it links, or null. */
  mention(handle: string, domain: string | null): string | null;
  /** A tag's page. */
  tag(name: string): string;
}

const URL_PATTERN = /\bhttps?:\/\/[^\s<>"']+/g;
// As the node finds mentions (domain actions/post-input.ts) and tags (contract hashtags.ts).
const MENTION_PATTERN =
  /(?<![\w@./-])@([A-Za-z0-9_][A-Za-z0-9_.-]*)(?:@([A-Za-z0-9.-]+(?::\d{1,5})?))?/g;
const TAG_PATTERN = /(?<![A-Za-z0-9_/&#])#([A-Za-z0-9_]*[A-Za-z_][A-Za-z0-9_]*)/g;

interface Span {
  start: number;
  end: number;
  html: string;
}

function linkSpans(line: string, links: LinkFinder): Span[] {
  const spans: Span[] = [];
  for (const match of line.matchAll(URL_PATTERN)) {
    // Closing punctuation ends a sentence, not the address.
    const url = match[0].replace(/[.,;:!?)\]'"]+$/, '');
    const shown = url.replace(/^https?:\/\//, '');
    spans.push({
      start: match.index,
      end: match.index + url.length,
      html: `<a href="${escapeHtml(url)}" rel="nofollow noopener noreferrer" target="_blank">${escapeHtml(shown)}</a>`,
    });
  }
  for (const match of line.matchAll(MENTION_PATTERN)) {
    const handle = match[1]!.replace(/[.-]+$/, '');
    const domain = match[2] ? match[2].replace(/[.-]+$/, '') : null;
    const href = links.mention(handle, domain);
    if (!href) continue;
    const text = domain ? `@${handle}@${domain}` : `@${handle}`;
    spans.push({
      start: match.index,
      end: match.index + text.length,
      html: `<span class="h-card"><a href="${escapeHtml(href)}" class="u-url mention">@<span>${escapeHtml(handle)}</span></a></span>`,
    });
  }
  for (const match of line.matchAll(TAG_PATTERN)) {
    const name = match[1]!;
    if (name.length > HASHTAG_MAX_CHARS) continue;
    spans.push({
      start: match.index,
      end: match.index + name.length + 1,
      html: `<a href="${escapeHtml(links.tag(name.toLowerCase()))}" class="mention hashtag" rel="tag">#<span>${escapeHtml(name)}</span></a>`,
    });
  }
  // Earlier first; an address wins over a mention or tag inside it.
  spans.sort((a, b) => a.start - b.start || b.end - a.end);
  const kept: Span[] = [];
  for (const span of spans) {
    const last = kept[kept.length - 1];
    if (!last || span.start >= last.end) kept.push(span);
  }
  return kept;
}

/** A post's text as HTML, with its addresses, mentions and tags linked. */
export function postHtml(text: string, links: LinkFinder): string {
  return paragraphs(text, (line) => {
    let html = '';
    let at = 0;
    for (const span of linkSpans(line, links)) {
      html += escapeHtml(line.slice(at, span.start)) + span.html;
      at = span.end;
    }
    return html + escapeHtml(line.slice(at));
  });
}
