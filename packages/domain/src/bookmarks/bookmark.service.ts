import { addBookmark } from './add-bookmark.ts';
import { listBookmarks } from './bookmark-list.ts';
import type { BookmarkDeps, BookmarkService } from './bookmark-types.ts';
import { removeBookmark } from './remove-bookmark.ts';

/** A person's bookmarks (bookmark-types.ts); each use case in its own file. */
export function createBookmarkService(deps: BookmarkDeps): BookmarkService {
  return {
    bookmark: (viewer, postId) => addBookmark(deps, viewer, postId),
    unbookmark: (viewer, postId) => removeBookmark(deps, viewer, postId),
    list: (viewer, query) => listBookmarks(deps, viewer, query),
  };
}
