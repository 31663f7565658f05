import type { Result } from '@swarm/contract';
import type { Db, Prisma } from '@swarm/db';
import type { Clock } from '../clock.ts';
import type { Viewer } from '../feeds/post-views.ts';
import type { ListedAuthor } from './list-holding.ts';
import { refuse, type Refusal } from '../refusal.ts';
import type { RegistryService } from '../registry/index.ts';
import type { ActorView, PostView } from '../views/index.ts';

/**
 * Lists (issue 25): named groups of people a person follows, here or on other nodes, each with
 * its own timeline read from this node's database. Private to their owner, never federated.
 */

export const LIST_LIMITS = {
  /** Lists one person may have. */
  lists: 50,
  /** People on one list. */
  members: 500,
  /** Characters of a title. */
  title: 100,
} as const;

export const LIST_TIMELINE_PAGE = { default: 20, max: 40 } as const;
/** Rows read at most for one timeline page (posts of muted people are skipped). */
export const LIST_SCAN_MAX_ROWS = 500;

/** Which replies a list's timeline shows (Mastodon's `replies_policy`). */
export const REPLIES_POLICIES = ['followed', 'list', 'none'] as const;
export type RepliesPolicy = (typeof REPLIES_POLICIES)[number];

export interface ListView {
  /** The list's UUID. */
  id: string;
  title: string;
  /** `followed`: replies to anyone the owner follows; `list`: to members; `none`: no replies. */
  repliesPolicy: RepliesPolicy;
  /** Members' posts leave the owner's home timeline. */
  exclusive: boolean;
  membersCount: number;
  createdAt: string;
}

export interface ListMemberView {
  /** The person's account id: a local user's UUID, or a remote actor's row UUID. */
  accountId: string;
  actor: ActorView;
  addedAt: string;
}

/** Whom to add or remove: an address (`alice`, `bob@beta.example`) or an account id. */
export type MemberRef = { address: string } | { accountId: string };

export interface ListTimeline {
  posts: PostView[];
  /** `before` of the next, older page (opaque); null when this is the last. */
  next: string | null;
  /** `after` of the newer page (the first post's cursor); null when the page is empty. */
  prev: string | null;
  /** Each post's cursor, in order (the client API pages by them). */
  cursors: string[];
}

export interface ListSettings {
  title?: string;
  repliesPolicy?: RepliesPolicy;
  exclusive?: boolean;
}

export interface ListService {
  /** The owner's lists, oldest first (at most `LIST_LIMITS.lists`). */
  lists(ownerId: string): Promise<ListView[]>;
  get(ownerId: string, listId: string): Promise<Result<ListView, Refusal>>;
  create(
    ownerId: string,
    input: ListSettings & { title: string },
  ): Promise<Result<ListView, Refusal>>;
  /** Renames or changes settings; what is left out stays. */
  update(ownerId: string, listId: string, input: ListSettings): Promise<Result<ListView, Refusal>>;
  remove(ownerId: string, listId: string): Promise<Result<null, Refusal>>;
  /** Members, most recently added first (a list holds at most `LIST_LIMITS.members`). */
  members(ownerId: string, listId: string): Promise<Result<ListMemberView[], Refusal>>;
  /** Adds people the owner follows (accepted or pending); already there: nothing changes. */
  addMembers(
    ownerId: string,
    listId: string,
    refs: readonly MemberRef[],
  ): Promise<Result<ListMemberView[], Refusal>>;
  /** Takes people off the list (not on it: nothing changes). */
  removeMembers(
    ownerId: string,
    listId: string,
    refs: readonly MemberRef[],
  ): Promise<Result<null, Refusal>>;
  /** The owner's lists that hold this person. */
  listsWith(ownerId: string, ref: MemberRef): Promise<Result<ListView[], Refusal>>;
  /** Posts of the list's members, newest first, from this node's database only. */
  timeline(
    viewer: Viewer,
    listId: string,
    query: { before?: string; after?: string; limit?: number },
  ): Promise<Result<ListTimeline, Refusal>>;
  /** Which of these lists hold which authors (the client API's `list` stream), one query. */
  holding(
    listIds: readonly string[],
    authors: readonly ListedAuthor[],
  ): Promise<(listId: string, author: ListedAuthor) => boolean>;
}

export interface ListDeps {
  db: Db;
  clock: Clock;
  config: { domain: string };
  registry: Pick<RegistryService, 'blockedDomains'>;
}

export const listViewSelect = {
  id: true,
  title: true,
  repliesPolicy: true,
  exclusive: true,
  createdAt: true,
  _count: { select: { members: true } },
} as const satisfies Prisma.UserListSelect;

export function toListView(row: Prisma.UserListGetPayload<{ select: typeof listViewSelect }>) {
  return {
    id: row.id,
    title: row.title,
    repliesPolicy: row.repliesPolicy,
    exclusive: row.exclusive,
    membersCount: row._count.members,
    createdAt: row.createdAt.toISOString(),
  } satisfies ListView;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The owner's list `listId`, or the refusal every use case answers (others' lists included). */
export async function ownedList(
  prisma: Db['prisma'],
  ownerId: string,
  listId: string,
): Promise<Result<ListView, Refusal>> {
  const row =
    typeof listId === 'string' && UUID.test(listId)
      ? await prisma.userList.findFirst({
          where: { id: listId, userId: ownerId },
          select: listViewSelect,
        })
      : null;
  if (!row) return refuse('NOT_FOUND', `You have no list ${String(listId).slice(0, 64)}.`);
  return { ok: true, value: toListView(row) };
}

/** A title as stored: trimmed, 1 to 100 characters. */
export function checkTitle(input: unknown): Result<string, Refusal> {
  const title = typeof input === 'string' ? input.trim().replace(/\s+/g, ' ') : '';
  if (title === '') return refuse('INVALID_REQUEST', 'Give the list a title.', { field: 'title' });
  if ([...title].length > LIST_LIMITS.title) {
    return refuse('INVALID_REQUEST', `A list title has at most ${LIST_LIMITS.title} characters.`, {
      field: 'title',
    });
  }
  return { ok: true, value: title };
}

export function checkPolicy(input: unknown): Result<RepliesPolicy | undefined, Refusal> {
  if (input === undefined) return { ok: true, value: undefined };
  return REPLIES_POLICIES.includes(input as RepliesPolicy)
    ? { ok: true, value: input as RepliesPolicy }
    : refuse('INVALID_REQUEST', 'Replies shown: followed, list or none.', {
        field: 'repliesPolicy',
      });
}
