import { POST_LIMITS, parseDomain, parseRemoteHandle } from '@swarm/contract';

/** A person named in a post: `@alice` here, `@bob@beta.example` elsewhere. */
export interface Mention {
  handle: string;
  /** Null for a user of this node. */
  domain: string | null;
}

// `@handle` or `@handle@domain[:port]`, not inside a word or an e-mail address.
const MENTION = /(?<![\w@./-])@([A-Za-z0-9_][A-Za-z0-9_.-]*)(?:@([A-Za-z0-9.-]+(?::\d{1,5})?))?/g;

/**
 * The mentions of a text, each once, in order of appearance. A trailing `.` or `-` ends a
 * sentence rather than a handle or domain; `@handle@<this node>` is a local mention.
 */
export function findMentions(content: string, self: string): Mention[] {
  const found = new Map<string, Mention>();
  for (const match of content.matchAll(MENTION)) {
    const handle = parseRemoteHandle(match[1]!.replace(/[.-]+$/, ''));
    if (!handle.ok) continue;
    let domain: string | null = null;
    if (match[2]) {
      const parsed = parseDomain(match[2].replace(/[.-]+$/, ''));
      if (!parsed.ok) continue;
      domain = parsed.value === self ? null : parsed.value;
    }
    const mention = {
      handle: domain ? handle.value : handle.value.toLowerCase(),
      domain,
    };
    const key = `${mention.handle.toLowerCase()}@${domain ?? ''}`;
    if (!found.has(key)) found.set(key, mention);
    if (found.size >= POST_LIMITS.mentions) break;
  }
  return [...found.values()];
}
