import type { Result } from '@swarm/contract';
import type { Db } from '@swarm/db';
import type { Clock } from '../clock.ts';
import type { Viewer } from '../feeds/post-views.ts';
import type { Refusal } from '../refusal.ts';
import type { RegistryService } from '../registry/index.ts';
import type { PostView } from '../views/index.ts';

/**
 * Bookmarks (issue 25): posts a person keeps to read again, ours or stored copies of other
 * nodes' posts. Private to the person: never federated, never counted on the post, shown to
 * nobody else.
 */

/** Bookmarks a person may hold: past it, a clear refusal (remove some first). */
export const BOOKMARKS_MAX = 10_000;

export const BOOKMARK_PAGE = { default: 20, max: 40 } as const;

/** Rows read at most for one page (bookmarks of people since muted or hidden are skipped). */
export const BOOKMARK_SCAN_MAX_ROWS = 500;

export interface BookmarkEntry {
  post: PostView;
  /** The bookmark row's id (a UUID) and when it was made. */
  bookmarkId: string;
  bookmarkedAt: string;
  /** The post's row id (the client API reads its Status by it). */
  postRowId: string;
  /** The entry's position: `before`/`after` of another page (opaque). */
  cursor: string;
}

export interface BookmarkPage {
  entries: BookmarkEntry[];
  /** The posts of `entries`, in order (what the timeline component shows). */
  posts: PostView[];
  /** `before` of the next, older page; null when this is the last. */
  next: string | null;
  /** `after` of the newer page (the first entry's cursor); null when the page is empty. */
  prev: string | null;
}

export interface BookmarkQuery {
  /** Older than this cursor (newest first). */
  before?: string;
  /** Newer than this cursor (still answered newest first). */
  after?: string;
  limit?: number;
}

export interface BookmarkService {
  /**
   * Bookmarks a post the viewer can read: a local UUID or `swarm:{domain}:{postId}` (a stored
   * copy). Repeating it changes nothing. Answers the post as the viewer sees it.
   */
  bookmark(viewer: Viewer, postId: string): Promise<Result<PostView, Refusal>>;
  /**
   * Removes a bookmark (none: nothing changes). Answers the post, or null when the viewer cannot
   * read it any more (the bookmark is gone all the same).
   */
  unbookmark(viewer: Viewer, postId: string): Promise<Result<PostView | null, Refusal>>;
  /** The viewer's bookmarks, newest bookmarked first, that they can still read. */
  list(viewer: Viewer, query: BookmarkQuery): Promise<Result<BookmarkPage, Refusal>>;
}

export interface BookmarkDeps {
  db: Db;
  clock: Clock;
  config: { domain: string };
  registry: Pick<RegistryService, 'blockedDomains' | 'isBlocked'>;
}
