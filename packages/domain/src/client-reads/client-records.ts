import type { PostVisibility } from '@swarm/db';

/**
 * What the client API (packages/client-api, Mastodon's shapes) reads about posts and people:
 * database rows with the ids apps see (`api_id` for posts, the row's UUID for people), local and
 * remote alike. Plain records, no wire shape: the client API turns them into Mastodon entities.
 */

/** A person, of this node (`users`) or of another one (`remote_actors`). */
export interface AccountRecord {
  /** The row's UUID: a local user's or a remote actor's. */
  id: string;
  isRemote: boolean;
  handle: string;
  /** The node that hosts them (this node's domain for local people). */
  domain: string;
  displayName: string;
  avatarUrl: string | null;
  headerUrl: string | null;
  bio: string;
  isBot: boolean;
  followersCount: number;
  followingCount: number;
  postsCount: number;
  /** A remote person's as their node last said, else when the copy of them was first stored. */
  createdAt: Date;
}

export interface MediaRecord {
  /** The upload's id for images uploaded here (what `media_ids` name), else the item's. */
  id: string;
  url: string;
  mimeType: string;
  altText: string;
  blurhash: string | null;
  width: number | null;
  height: number | null;
}

export interface LinkCardRecord {
  url: string;
  title: string | null;
  description: string | null;
  image: string | null;
}

/** Someone a post names with `@handle` (or `@handle@domain`), known here or not. */
export interface MentionRecord {
  handle: string;
  domain: string;
  /** Their row id when this node knows them, else null. */
  accountId: string | null;
}

/** What the viewer did with a post (all false for an anonymous reader). */
export interface StatusViewerRecord {
  favourited: boolean;
  reblogged: boolean;
  bookmarked: boolean;
}

export interface StatusRecord {
  /** The `posts` row. */
  rowId: string;
  /** Its id in the client API (docs/clients.md "Ids"). */
  apiId: bigint;
  /** Where the post lives and its id there (a copy's `swarm:{domain}:{postId}` parts). */
  nodeDomain: string;
  postId: string;
  isRemote: boolean;
  account: AccountRecord;
  visibility: PostVisibility;
  content: string;
  isNsfw: boolean;
  createdAt: Date;
  /**
   * A copy of another node's post: when this node last saw its text, mark, images or link
   * change. Null for local posts (not edited) and unchanged copies.
   */
  editedAt: Date | null;
  media: MediaRecord[];
  card: LinkCardRecord | null;
  mentions: MentionRecord[];
  tags: string[];
  likesCount: number;
  repostsCount: number;
  repliesCount: number;
  /** The parent of a reply, when its row is here. */
  inReplyTo: { apiId: bigint; accountId: string | null } | null;
  /** A repost row: the post it repeats (then content, media and counts are the original's). */
  reblog: StatusRecord | null;
  viewer: StatusViewerRecord;
}

/** Who reads: a local user, or nobody signed in. */
export interface ClientViewer {
  id: string;
  handle: string;
}

/** Paging by `api_id` as Mastodon apps send it (docs/clients.md "Ids"). */
export interface ApiIdPage {
  /** Older than this id. */
  maxId?: bigint;
  /** Newer than this id, the newest first. */
  sinceId?: bigint;
  /** Newer than this id, the oldest of them first (then answered newest first). */
  minId?: bigint;
  limit: number;
}

export interface StatusPage {
  statuses: StatusRecord[];
}
