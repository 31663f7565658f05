import { findHashtags, isHttpUrl, parseSwarmPostId } from '@swarm/contract';
import { localActorKey, type Prisma, type PrismaClient } from '@swarm/db';
import { findMentions } from '../actions/post-input.ts';
import type {
  AccountRecord,
  ClientViewer,
  MediaRecord,
  MentionRecord,
  StatusRecord,
  StatusViewerRecord,
} from './client-records.ts';

/**
 * Posts rows as status records: one query for the rows (reposts with their originals), then one
 * each for the people they mention and for the viewer's likes and reposts, whatever the number
 * of rows. Rows that cannot be shown (deleted, hidden author, a repost of a deleted post) are
 * left out; visibility to the viewer is the caller's (status-access.ts, the timelines' queries).
 */

export const accountUserSelect = {
  id: true,
  handle: true,
  displayName: true,
  avatarUrl: true,
  headerUrl: true,
  bio: true,
  isBot: true,
  isNsfw: true,
  followersCount: true,
  followingCount: true,
  postsCount: true,
  createdAt: true,
  suspendedAt: true,
  pendingApproval: true,
} as const satisfies Prisma.UserSelect;

export const accountRemoteSelect = {
  id: true,
  handle: true,
  nodeDomain: true,
  displayName: true,
  avatarUrl: true,
  bio: true,
  createdAt: true,
  profile: {
    select: {
      headerUrl: true,
      followersCount: true,
      followingCount: true,
      postsCount: true,
      isBot: true,
      joinedAt: true,
    },
  },
} as const satisfies Prisma.RemoteActorSelect;

type UserRow = Prisma.UserGetPayload<{ select: typeof accountUserSelect }>;
type RemoteRow = Prisma.RemoteActorGetPayload<{ select: typeof accountRemoteSelect }>;

const absolute = (url: string | null | undefined) => (url && isHttpUrl(url) ? url : null);

export function userAccount(user: UserRow, self: string): AccountRecord {
  return {
    id: user.id,
    isRemote: false,
    handle: user.handle,
    domain: self,
    displayName: user.displayName,
    // Local media paths stay as stored: the client API makes them absolute on this origin.
    avatarUrl: user.avatarUrl,
    headerUrl: user.headerUrl,
    bio: user.bio,
    isBot: user.isBot,
    followersCount: user.followersCount,
    followingCount: user.followingCount,
    postsCount: user.postsCount,
    createdAt: user.createdAt,
  };
}

export function remoteAccount(actor: RemoteRow): AccountRecord {
  const profile = actor.profile;
  return {
    id: actor.id,
    isRemote: true,
    handle: actor.handle,
    domain: actor.nodeDomain,
    displayName: actor.displayName,
    avatarUrl: absolute(actor.avatarUrl),
    headerUrl: absolute(profile?.headerUrl),
    bio: actor.bio,
    isBot: profile?.isBot ?? false,
    followersCount: profile?.followersCount ?? 0,
    followingCount: profile?.followingCount ?? 0,
    postsCount: profile?.postsCount ?? 0,
    createdAt: profile?.joinedAt ?? actor.createdAt,
  };
}

const fieldsSelect = {
  id: true,
  apiId: true,
  apId: true,
  content: true,
  isNsfw: true,
  visibility: true,
  createdAt: true,
  editedAt: true,
  deletedAt: true,
  likesCount: true,
  repostsCount: true,
  repliesCount: true,
  linkPreviewUrl: true,
  linkPreviewTitle: true,
  linkPreviewDescription: true,
  linkPreviewImage: true,
  author: { select: accountUserSelect },
  remoteAuthor: { select: accountRemoteSelect },
  media: {
    select: { id: true, url: true, mimeType: true, altText: true, blurhash: true },
    orderBy: { position: 'asc' },
  },
  uploads: { select: { id: true, width: true, height: true } },
  replyTo: {
    select: { apiId: true, authorId: true, remoteAuthorId: true, deletedAt: true },
  },
} as const satisfies Prisma.PostSelect;

export const statusRowSelect = {
  ...fieldsSelect,
  repostOf: { select: fieldsSelect },
} as const satisfies Prisma.PostSelect;

type FieldsRow = Prisma.PostGetPayload<{ select: typeof fieldsSelect }>;
export type StatusRow = Prisma.PostGetPayload<{ select: typeof statusRowSelect }>;

function mediaOf(row: FieldsRow): MediaRecord[] {
  // An image uploaded here is a file named by its upload's id: its size and id come from there.
  const uploadOf = (url: string) =>
    row.uploads.find((upload) => url.endsWith(`/${upload.id}.webp`)) ?? null;
  return row.media
    .filter((item) => isHttpUrl(item.url) || item.url.startsWith('/'))
    .map((item) => {
      const upload = uploadOf(item.url);
      return {
        id: upload?.id ?? item.id,
        url: item.url,
        mimeType: item.mimeType,
        altText: item.altText,
        blurhash: item.blurhash,
        width: upload?.width ?? null,
        height: upload?.height ?? null,
      };
    });
}

/** Where a row's post lives and its id there; null for a copy whose id cannot be read. */
function placeOf(row: { id: string; apId: string | null }, self: string) {
  if (!row.apId) return { nodeDomain: self, postId: row.id, isRemote: false };
  const parsed = parseSwarmPostId(row.apId);
  return parsed.ok
    ? { nodeDomain: parsed.value.domain, postId: parsed.value.postId, isRemote: true }
    : null;
}

function isShownUser(user: UserRow) {
  return user.suspendedAt === null && !user.pendingApproval;
}

const NO_VIEWER = { favourited: false, reblogged: false, bookmarked: false } as const;

function fieldsRecord(row: FieldsRow, self: string): StatusRecord | null {
  if (row.deletedAt) return null;
  const place = placeOf(row, self);
  if (!place) return null;
  let account: AccountRecord;
  if (row.author) {
    if (!isShownUser(row.author)) return null;
    account = userAccount(row.author, self);
  } else if (row.remoteAuthor) {
    account = remoteAccount(row.remoteAuthor);
  } else {
    return null;
  }
  const card = absolute(row.linkPreviewUrl)
    ? {
        url: row.linkPreviewUrl!,
        title: row.linkPreviewTitle || null,
        description: row.linkPreviewDescription || null,
        image: absolute(row.linkPreviewImage),
      }
    : null;
  const parent = row.replyTo && !row.replyTo.deletedAt ? row.replyTo : null;
  return {
    rowId: row.id,
    apiId: row.apiId,
    ...place,
    account,
    visibility: row.visibility,
    content: row.content,
    isNsfw: row.isNsfw || (row.author?.isNsfw ?? false),
    createdAt: row.createdAt,
    editedAt: row.editedAt,
    media: mediaOf(row),
    card,
    mentions: [],
    tags: findHashtags(row.content),
    likesCount: row.likesCount,
    repostsCount: row.repostsCount,
    repliesCount: row.repliesCount,
    inReplyTo: parent
      ? { apiId: parent.apiId, accountId: parent.authorId ?? parent.remoteAuthorId ?? null }
      : null,
    reblog: null,
    viewer: NO_VIEWER,
  };
}

/** A row as a record: a repost row wraps the post it repeats. */
export function rowRecord(row: StatusRow, self: string): StatusRecord | null {
  if (!row.repostOf) return fieldsRecord(row, self);
  const wrapper = fieldsRecord(row, self);
  const original = fieldsRecord(row.repostOf, self);
  if (!wrapper || !original) return null;
  return {
    ...wrapper,
    content: '',
    media: [],
    card: null,
    tags: [],
    isNsfw: false,
    inReplyTo: null,
    reblog: original,
  };
}

/** The people named in the records' texts, with their row ids when this node knows them. */
async function fillMentions(
  prisma: PrismaClient,
  records: StatusRecord[],
  self: string,
): Promise<void> {
  const found = new Map<StatusRecord, { handle: string; domain: string }[]>();
  const local = new Set<string>();
  const remote: { handle: string; nodeDomain: string }[] = [];
  for (const record of [...records, ...records.flatMap((r) => (r.reblog ? [r.reblog] : []))]) {
    // A bare `@handle` in a copy names someone of the copy's node.
    const named = findMentions(record.content, record.nodeDomain).map((m) => ({
      handle: m.handle,
      domain: m.domain ?? record.nodeDomain,
    }));
    found.set(record, named);
    for (const m of named) {
      if (m.domain === self) local.add(m.handle.toLowerCase());
      else remote.push({ handle: m.handle, nodeDomain: m.domain });
    }
  }
  if (local.size === 0 && remote.length === 0) return;
  const [users, actors] = await Promise.all([
    local.size === 0
      ? []
      : prisma.user.findMany({
          where: { handle: { in: [...local] }, suspendedAt: null, pendingApproval: false },
          select: { id: true, handle: true },
        }),
    remote.length === 0
      ? []
      : prisma.remoteActor.findMany({
          where: { OR: remote.slice(0, 200) },
          select: { id: true, handle: true, nodeDomain: true },
        }),
  ]);
  const ids = new Map<string, string>();
  for (const u of users) ids.set(`${u.handle}@${self}`.toLowerCase(), u.id);
  for (const a of actors) ids.set(`${a.handle}@${a.nodeDomain}`.toLowerCase(), a.id);
  for (const [record, named] of found) {
    record.mentions = named.map((m): MentionRecord => ({
      ...m,
      accountId: ids.get(`${m.handle}@${m.domain}`.toLowerCase()) ?? null,
    }));
  }
}

/** How each of some viewers sees a row: their likes, reposts and bookmarks (private to them). */
export type ViewerStates = (viewerId: string, rowId: string) => StatusViewerRecord;

/**
 * The likes, reposts and bookmarks of `viewerIds` among the posts the records show: one query
 * each, whatever the number of viewers (the streams read them for everyone connected at once).
 */
export async function viewerStates(
  prisma: PrismaClient,
  viewerIds: readonly string[],
  records: readonly StatusRecord[],
): Promise<ViewerStates> {
  const rowIds = [...new Set(records.map((r) => (r.reblog ?? r).rowId))];
  const viewers = [...new Set(viewerIds)];
  if (rowIds.length === 0 || viewers.length === 0) return () => NO_VIEWER;
  const keys = viewers.map(localActorKey);
  const userOf = new Map(viewers.map((id, i) => [keys[i]!, id]));
  const [likes, reposts, bookmarks] = await Promise.all([
    prisma.like.findMany({
      where: { actorKey: { in: keys }, postId: { in: rowIds } },
      select: { postId: true, actorKey: true },
    }),
    prisma.repost.findMany({
      where: { actorKey: { in: keys }, postId: { in: rowIds } },
      select: { postId: true, actorKey: true },
    }),
    prisma.bookmark.findMany({
      where: { userId: { in: viewers }, postId: { in: rowIds } },
      select: { postId: true, userId: true },
    }),
  ]);
  const liked = new Set(likes.map((l) => `${userOf.get(l.actorKey)} ${l.postId}`));
  const reposted = new Set(reposts.map((r) => `${userOf.get(r.actorKey)} ${r.postId}`));
  const bookmarked = new Set(bookmarks.map((b) => `${b.userId} ${b.postId}`));
  return (viewerId, rowId) => {
    const key = `${viewerId} ${rowId}`;
    return {
      favourited: liked.has(key),
      reblogged: reposted.has(key),
      bookmarked: bookmarked.has(key),
    };
  };
}

/**
 * The record as `viewerId` sees it (a copy: records rendered for nobody in particular are
 * shared). Mastodon answers a reblog's state as its original's.
 */
export function recordFor(
  record: StatusRecord,
  viewerId: string,
  states: ViewerStates,
): StatusRecord {
  const viewer = states(viewerId, (record.reblog ?? record).rowId);
  return { ...record, viewer, ...(record.reblog ? { reblog: { ...record.reblog, viewer } } : {}) };
}

async function fillViewer(
  prisma: PrismaClient,
  viewer: ClientViewer | null,
  records: StatusRecord[],
): Promise<void> {
  if (!viewer || records.length === 0) return;
  const states = await viewerStates(prisma, [viewer.id], records);
  // In place: the mentions are filled into these same records meanwhile.
  for (const record of records) {
    record.viewer = states(viewer.id, (record.reblog ?? record).rowId);
    if (record.reblog) record.reblog.viewer = record.viewer;
  }
}

/** Mentions and the viewer's state filled in (records built by `rowRecord`). */
export async function completeRecords(
  prisma: PrismaClient,
  records: StatusRecord[],
  viewer: ClientViewer | null,
  self: string,
): Promise<StatusRecord[]> {
  await Promise.all([fillMentions(prisma, records, self), fillViewer(prisma, viewer, records)]);
  return records;
}

/** Rows in the order given (missing or unshowable ones left out), as full records. */
export async function loadStatusRecords(
  prisma: PrismaClient,
  input: { rowIds: readonly string[]; viewer: ClientViewer | null; self: string },
): Promise<StatusRecord[]> {
  if (input.rowIds.length === 0) return [];
  const rows = await prisma.post.findMany({
    where: { id: { in: [...input.rowIds] } },
    select: statusRowSelect,
  });
  const byId = new Map(rows.map((row) => [row.id, row]));
  const records = input.rowIds.flatMap((id) => {
    const row = byId.get(id);
    const record = row ? rowRecord(row, input.self) : null;
    return record ? [record] : [];
  });
  return completeRecords(prisma, records, input.viewer, input.self);
}
