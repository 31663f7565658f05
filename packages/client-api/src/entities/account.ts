import type { NodeContact } from '@swarm/domain';

const HTML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Plain text as the HTML Mastodon clients render (`note`): escaped, paragraphs, line breaks. */
export function textAsHtml(text: string): string {
  const escaped = text.replace(/[&<>"']/g, (ch) => HTML_ESCAPES[ch]!);
  return escaped
    .split(/\n{2,}/)
    .filter((p) => p.trim() !== '')
    .map((p) => `<p>${p.replace(/\n/g, '<br>')}</p>`)
    .join('');
}

/** Mastodon's Account entity of a person of this node. */
export function localAccount(person: NodeContact, baseUrl: string) {
  const url = `${baseUrl}/@${person.handle}`;
  const avatar = person.avatarUrl ?? '';
  const header = person.headerUrl ?? '';
  return {
    id: person.id,
    username: person.handle,
    acct: person.handle,
    display_name: person.displayName,
    locked: false,
    bot: person.isBot,
    discoverable: true,
    group: false,
    created_at: person.createdAt.toISOString(),
    note: textAsHtml(person.bio),
    url,
    uri: url,
    avatar,
    avatar_static: avatar,
    header,
    header_static: header,
    followers_count: person.followersCount,
    following_count: person.followingCount,
    statuses_count: person.postsCount,
    last_status_at: null,
    emojis: [],
    fields: [],
  };
}
