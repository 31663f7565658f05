import { err, ok, uuidSchema, type Result } from '@swarm/contract';

/**
 * Paging by position for lists a person keeps (bookmarks, list timelines): rows sorted by
 * (time, row id), so that a cursor names one row exactly and no two rows share a place, even
 * when many were made in the same millisecond. A cursor is opaque to callers (`<ms>_<uuid>`):
 * pages hand it on as `before` (older rows) or `after` (newer rows); the client API can carry
 * it as Mastodon's `max_id` / `min_id`.
 */

export interface RowPosition {
  at: Date;
  id: string;
}

export function formatCursor(position: RowPosition): string {
  return `${position.at.getTime()}_${position.id}`;
}

export function parseCursor(text: string): Result<RowPosition, string> {
  const match = /^(\d{1,15})_(.+)$/.exec(text);
  if (!match || !uuidSchema.safeParse(match[2]).success) {
    return err('not a cursor this node gave out');
  }
  return ok({ at: new Date(Number(match[1])), id: match[2]! });
}

/** Which way a page reads from its cursor: `older` (newest first) or `newer` (oldest first). */
export type PageDirection = 'older' | 'newer';

/** `where` for the rows past `position` in `direction`, on a model's `createdAt` and `id`. */
export function pastPosition(position: RowPosition, direction: PageDirection) {
  const op = direction === 'older' ? 'lt' : 'gt';
  return {
    OR: [
      { createdAt: { [op]: position.at } },
      { createdAt: position.at, id: { [op]: position.id } },
    ],
  };
}

/** Sort order of a page read in `direction`. */
export function pageOrder(direction: PageDirection) {
  const dir = direction === 'older' ? 'desc' : 'asc';
  return [{ createdAt: dir }, { id: dir }] as const;
}

/** One read batch when a page has to read past rows it leaves out. */
const SCAN_BATCH = 50;

export interface ScannedPage<Item> {
  /** Kept items in the order read. */
  items: { item: Item; position: RowPosition }[];
  /**
   * Where the next page in the same direction starts, null when nothing is left. Past the scan
   * bound it is the last row read, so a page of left-out rows still moves on.
   */
  next: RowPosition | null;
}

/**
 * Reads rows past `start` in batches, keeps what `view` turns into an item, and stops at `limit`
 * items, at the end of the rows, or after `maxRows` rows read (a viewer who muted nearly everyone
 * costs a bounded read per page).
 */
export async function scanPage<Row, Item>(input: {
  start: RowPosition | null;
  limit: number;
  maxRows: number;
  /** Up to `take` rows strictly past `from` (all rows when null), in page order. */
  read: (from: RowPosition | null, take: number) => Promise<Row[]>;
  position: (row: Row) => RowPosition;
  view: (row: Row) => Item | null;
}): Promise<ScannedPage<Item>> {
  const items: ScannedPage<Item>['items'] = [];
  let from = input.start;
  let read = 0;
  for (;;) {
    const take = read === 0 ? input.limit + 1 : Math.max(input.limit + 1, SCAN_BATCH);
    const rows = await input.read(from, take);
    for (const row of rows) {
      if (items.length === input.limit) return { items, next: from };
      const position = input.position(row);
      const item = input.view(row);
      if (item !== null) items.push({ item, position });
      from = position;
      read += 1;
    }
    if (rows.length < take) return { items, next: null };
    if (read >= input.maxRows) return { items, next: from };
  }
}
