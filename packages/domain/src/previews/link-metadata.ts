import { Parser } from 'htmlparser2';
import { POST_LIMITS, isHttpUrl } from '@swarm/contract';

/** What a link card shows, read from a page's Open Graph / Twitter card / plain HTML metadata. */
export interface LinkMetadata {
  title: string | null;
  description: string | null;
  /** Absolute http(s) URL (relative ones are resolved against the page). */
  image: string | null;
  siteName: string | null;
}

/** The meta names read, best first, for each field. */
const TITLE = ['og:title', 'twitter:title'];
const DESCRIPTION = ['og:description', 'twitter:description', 'description'];
const IMAGE = [
  'og:image:secure_url',
  'og:image:url',
  'og:image',
  'twitter:image',
  'twitter:image:src',
];
const SITE = ['og:site_name', 'application-name'];
const WANTED = new Set([...TITLE, ...DESCRIPTION, ...IMAGE, ...SITE]);

/** Collapses runs of white space and trims to `max` code points (with an ellipsis). */
function clean(text: string | undefined, max: number): string | null {
  if (!text) return null;
  const flat = text.replace(/\s+/g, ' ').trim();
  if (!flat) return null;
  const chars = Array.from(flat);
  return chars.length <= max ? flat : `${chars.slice(0, max - 1).join('')}…`;
}

/**
 * Reads the metadata of an HTML page with htmlparser2 (a forgiving streaming parser: broken
 * markup is read as browsers would, entities decoded). Only `<head>`-type elements matter: the
 * first value of each meta name wins, `<title>` is the fallback title, and parsing stops at
 * `<body>` once a title was seen (metadata after it is rare and the body is the bulk of a page).
 */
export function parseLinkMetadata(html: string, pageUrl: string): LinkMetadata {
  const meta = new Map<string, string>();
  let title = '';
  let inTitle = false;
  let titleDone = false;
  let done = false;

  const parser = new Parser(
    {
      onopentag(name, attributes) {
        if (done) return;
        if (name === 'title' && !titleDone) inTitle = true;
        else if (name === 'meta') {
          const key = (attributes.property ?? attributes.name ?? '').trim().toLowerCase();
          const content = attributes.content;
          if (key && content !== undefined && WANTED.has(key) && !meta.has(key)) {
            meta.set(key, content);
          }
        } else if (name === 'body' && (titleDone || meta.has('og:title'))) {
          done = true;
          parser.pause();
        }
      },
      ontext(text) {
        if (inTitle && title.length < 4096) title += text;
      },
      onclosetag(name) {
        if (name === 'title' && inTitle) {
          inTitle = false;
          titleDone = true;
        }
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.end(html);

  const first = (names: readonly string[]) =>
    names.map((name) => meta.get(name)).find((v) => v !== undefined && v.trim() !== '');

  return {
    title: clean(first(TITLE) ?? title, POST_LIMITS.linkTitleChars),
    description: clean(first(DESCRIPTION), POST_LIMITS.linkDescriptionChars),
    image: absoluteImage(first(IMAGE), pageUrl),
    siteName: clean(first(SITE), 100),
  };
}

function absoluteImage(raw: string | undefined, pageUrl: string): string | null {
  if (!raw) return null;
  try {
    const url = new URL(raw.trim(), pageUrl).href;
    return isHttpUrl(url) && url.length <= 2048 ? url : null;
  } catch {
    return null;
  }
}
