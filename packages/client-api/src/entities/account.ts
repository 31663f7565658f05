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
  // Apps load images from anywhere: a node-relative media path becomes absolute.
  const absolute = (path: string | null) =>
    path?.startsWith('/') ? `${baseUrl}${path}` : (path ?? '');
  const avatar = absolute(person.avatarUrl);
  const header = absolute(person.headerUrl);
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

/** The signed-in person's own Account entity, with the `source` apps edit their profile from. */
export function credentialAccount(person: NodeContact, baseUrl: string) {
  return {
    ...localAccount(person, baseUrl),
    source: {
      privacy: 'public',
      sensitive: false,
      language: null,
      note: person.bio,
      fields: [],
      follow_requests_count: 0,
    },
  };
}
