import { normaliseHashtag } from '@swarm/contract';

/**
 * Display helpers shared by the content pages: counts, times and the parsing of post text into
 * plain text, mentions and links. Pure functions (no DOM, no Svelte) so they run on the server,
 * in the browser and in unit tests alike.
 */

/** "1 like", "3 likes", "1 reply", "2 replies". */
export function countLabel(count: number, singular: string, plural = `${singular}s`): string {
  return `${count} ${count === 1 ? singular : plural}`;
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** "just now", "5 min ago", "3 h ago", "2 d ago", then the date ("2025-11-02"). */
export function relativeTime(iso: string, now: number = Date.now()): string {
  const at = Date.parse(iso);
  if (Number.isNaN(at)) return '';
  const ago = now - at;
  if (ago < MINUTE) return 'just now';
  if (ago < HOUR) return `${Math.floor(ago / MINUTE)} min ago`;
  if (ago < DAY) return `${Math.floor(ago / HOUR)} h ago`;
  if (ago < 7 * DAY) return `${Math.floor(ago / DAY)} d ago`;
  return new Date(at).toISOString().slice(0, 10);
}

/** Same text on server and browser (no locale), for `title` attributes: "2025-11-02 14:05 UTC". */
export function absoluteTime(iso: string): string {
  const at = Date.parse(iso);
  if (Number.isNaN(at)) return iso;
  return `${new Date(at).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

export type ContentSegment =
  | { kind: 'text'; text: string }
  | { kind: 'mention'; text: string; href: string }
  | { kind: 'link'; text: string; href: string }
  | { kind: 'tag'; text: string; href: string };

/**
 * `@handle`, `@handle@domain[:port]`, http(s) URLs and `#tags` (the contract's hashtag rule:
 * not after a word character, `/`, `&` or `#`). A mention must not follow a word
 * character (so `me@example.com` stays text); the handle and domain alphabets are the contract's
 * (REMOTE_HANDLE and host names), trailing dots and punctuation are left out of the match.
 */
const TOKEN =
  /(?<![\w@./-])@([A-Za-z0-9_](?:[A-Za-z0-9_.-]{0,62}[A-Za-z0-9_])?)(?:@([A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?(?::\d{1,5})?))?|\bhttps?:\/\/[^\s<>"'`]+|(?<![\w/&#])#([A-Za-z0-9_]*[A-Za-z_][A-Za-z0-9_]*)/g;

/** Punctuation that ends a sentence rather than a URL ("see https://x.example/a."). */
const URL_TRAILING = /[.,;:!?)\]}'"]+$/;

export interface MentionContext {
  /** The node the post lives on: a bare `@carol` in it means carol on that node. */
  postDomain: string;
  /** This node's domain: mentions of people here link to `/@carol`, not `/@carol@here`. */
  localDomain: string;
}

/** App path of a tag page: `/tags/rust`. */
export function tagPath(tag: string): string {
  return `/tags/${encodeURIComponent(tag.toLowerCase())}`;
}

/** App path of a person's profile: `/@alice` here, `/@bob@beta.example` elsewhere. */
export function profilePath(handle: string, domain: string, localDomain: string): string {
  const address =
    domain.toLowerCase() === localDomain.toLowerCase() ? handle : `${handle}@${domain}`;
  return `/@${address}`;
}

/**
 * Splits post text into segments the view renders as text nodes and anchors, so user text
 * never reaches the page as HTML.
 */
export function parseContent(content: string, ctx: MentionContext): ContentSegment[] {
  const segments: ContentSegment[] = [];
  let last = 0;
  const pushText = (text: string) => {
    if (!text) return;
    const prev = segments[segments.length - 1];
    if (prev?.kind === 'text') prev.text += text;
    else segments.push({ kind: 'text', text });
  };
  for (const match of content.matchAll(TOKEN)) {
    const start = match.index;
    let token = match[0];
    let href: string;
    let kind: 'mention' | 'link' | 'tag';
    if (token.startsWith('#')) {
      const tag = normaliseHashtag(token);
      if (!tag) continue;
      kind = 'tag';
      href = tagPath(tag);
    } else if (token.startsWith('@')) {
      const handle = match[1]!;
      const domain = match[2] ?? ctx.postDomain;
      kind = 'mention';
      href = profilePath(handle, domain, ctx.localDomain);
    } else {
      token = token.replace(URL_TRAILING, '');
      const url = safeHttpUrl(token);
      if (!url) continue;
      kind = 'link';
      href = url;
    }
    pushText(content.slice(last, start));
    segments.push({ kind, text: token, href });
    last = start + token.length;
  }
  pushText(content.slice(last));
  return segments;
}

/** The URL if it is a well-formed http(s) URL, else null (no `javascript:` and friends). */
export function safeHttpUrl(input: string | null | undefined): string | null {
  if (!input) return null;
  try {
    const url = new URL(input);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
}

/** "example.com" from a URL, for link cards; the input when it does not parse. */
export function hostOf(input: string): string {
  try {
    return new URL(input).host;
  } catch {
    return input;
  }
}

/** What the acting person reads after an action: "Liked. beta.example: retrying, next in 4 min". */
export function actionMessage(
  done: string,
  delivery: { targetDomain: string; summary: string } | null,
): string {
  return delivery ? `${done}. ${delivery.targetDomain}: ${delivery.summary}` : `${done}.`;
}
