import { baseUrlForDomain } from '@swarm/contract';
import type { AccountRecord, NodeContact } from '@swarm/domain';
import { textAsHtml } from './html.ts';

export { textAsHtml } from './html.ts';

/** The address of a person's profile page on their node (docs/protocol.md: `/@{handle}`). */
export function profileUrl(handle: string, domain: string): string {
  return `${baseUrlForDomain(domain)}/@${handle}`;
}

/** Apps load images from anywhere: a node-relative media path becomes absolute on `baseUrl`. */
export function absoluteUrl(path: string | null | undefined, baseUrl: string): string {
  return path?.startsWith('/') ? `${baseUrl}${path}` : (path ?? '');
}

/**
 * What an account without its own picture shows: apps draw `avatar` and `header` as images and
 * show an empty URL as a broken one, so the web app serves a neutral pair (apps/web/static).
 */
const MISSING_AVATAR_PATH = '/avatars/missing.png';
const MISSING_HEADER_PATH = '/headers/missing.png';

/**
 * Mastodon's Account entity of a person, of this node or of another one: `acct` is the handle
 * alone for people of this node and `handle@domain` for others, `url` their profile page on their
 * own node. `domain` is this node's.
 */
export function accountEntity(person: AccountRecord, domain: string) {
  const baseUrl = baseUrlForDomain(domain);
  const isLocal = !person.isRemote && person.domain === domain;
  const url = profileUrl(person.handle, person.domain);
  const avatar = absoluteUrl(person.avatarUrl || MISSING_AVATAR_PATH, baseUrl);
  const header = absoluteUrl(person.headerUrl || MISSING_HEADER_PATH, baseUrl);
  return {
    id: person.id,
    username: person.handle,
    acct: isLocal ? person.handle : `${person.handle}@${person.domain}`,
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

export type AccountEntity = ReturnType<typeof accountEntity>;

/** A person of this node as an account record (the instance contact, the token's person). */
function contactRecord(person: NodeContact, domain: string): AccountRecord {
  return { ...person, isRemote: false, domain };
}

/** Mastodon's Account entity of a person of this node, `baseUrl` being this node's. */
export function localAccount(person: NodeContact, baseUrl: string) {
  const domain = new URL(baseUrl).host;
  return accountEntity(contactRecord(person, domain), domain);
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
