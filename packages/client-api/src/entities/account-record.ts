import { baseUrlForDomain } from '@swarm/contract';
import type { AccountRecord, Relationship } from '@swarm/domain';
import { textAsHtml } from './account.ts';

/**
 * Mastodon's Account entity of anyone this node knows, local or remote, from the domain's
 * account record (`node.appAccounts`). `acct` is `handle` here and `handle@domain` for others;
 * `url` is the person's page on their own node. Images of other nodes go through this node's
 * media proxy (`media.src`), as pages show them, so an app's reader is not tracked by the
 * image's host; every URL is absolute.
 */

export interface AccountEntityContext {
  baseUrl: string;
  /** `node.media.src`: a node-relative path for an image, or null. */
  src(url: string | null): string | null;
}

export function recordAccount(record: AccountRecord, ctx: AccountEntityContext) {
  const home = record.isRemote ? safeBase(record.domain) : ctx.baseUrl;
  const url = `${home}/@${record.handle}`;
  const image = (value: string | null) => {
    const shown = ctx.src(value);
    if (!shown) return '';
    return shown.startsWith('/') ? `${ctx.baseUrl}${shown}` : shown;
  };
  const avatar = image(record.avatarUrl);
  const header = image(record.headerUrl);
  return {
    id: record.id,
    username: record.handle,
    acct: record.isRemote ? `${record.handle}@${record.domain}` : record.handle,
    display_name: record.displayName,
    locked: false,
    bot: record.isBot,
    discoverable: true,
    group: false,
    created_at: record.createdAt.toISOString(),
    note: textAsHtml(record.bio),
    url,
    uri: url,
    avatar,
    avatar_static: avatar,
    header,
    header_static: header,
    followers_count: record.followersCount,
    following_count: record.followingCount,
    statuses_count: record.postsCount,
    last_status_at: null,
    emojis: [],
    fields: record.website
      ? [{ name: 'Website', value: textAsHtml(record.website), verified_at: null }]
      : [],
  };
}

function safeBase(domain: string): string {
  try {
    return baseUrlForDomain(domain);
  } catch {
    return `https://${domain}`;
  }
}

/** Mastodon's Relationship entity. */
export function relationshipEntity(r: Relationship) {
  return {
    id: r.id,
    following: r.following,
    showing_reblogs: r.following,
    notifying: false,
    languages: null,
    followed_by: r.followedBy,
    blocking: r.blocking,
    blocked_by: r.blockedBy,
    muting: r.muting,
    muting_notifications: r.muting,
    requested: r.requested,
    requested_by: false,
    domain_blocking: r.domainBlocking,
    endorsed: false,
    note: '',
  };
}
