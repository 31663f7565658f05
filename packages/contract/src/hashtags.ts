/**
 * Hashtags (issue #14): `#tag` not inside a word, a URL path or an HTML entity; ASCII letters,
 * digits and `_`, at least one letter or `_` (so `#1` is not a tag), at most 64 characters.
 * Tags compare lower-cased. The database indexes posts by the same rule (SQL function
 * `post_hashtags`, prisma/migrations/*_post_search): keep the two in step.
 */
export const HASHTAG_MAX_CHARS = 64;

/** Group 1: the character before (or nothing at the start), group 2: the tag without `#`. */
export const HASHTAG_PATTERN = /(^|[^A-Za-z0-9_/&#])#([A-Za-z0-9_]*[A-Za-z_][A-Za-z0-9_]*)/g;

const TAG = /^[A-Za-z0-9_]*[A-Za-z_][A-Za-z0-9_]*$/;

/** The tags of a text, lower-cased, each once, in order of appearance. */
export function findHashtags(text: string): string[] {
  const found = new Set<string>();
  for (const match of text.matchAll(HASHTAG_PATTERN)) {
    const tag = match[2]!;
    if (tag.length <= HASHTAG_MAX_CHARS) found.add(tag.toLowerCase());
  }
  return [...found];
}

/** `Rust`, `#rust` → `rust`; null when it is not a tag. */
export function normaliseHashtag(input: string): string | null {
  const tag = input.trim().replace(/^#/, '');
  return tag.length <= HASHTAG_MAX_CHARS && TAG.test(tag) ? tag.toLowerCase() : null;
}
