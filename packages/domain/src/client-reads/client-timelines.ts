import { ok, type Result } from '@swarm/contract';
import type { Prisma, PrismaClient } from '@swarm/db';
import { LISTED, TIMELINE_LIVE, TOP_LEVEL } from '../content/content.service.ts';
import { clientTagPageSql, type TagScope } from '../persistence/client-reads.sql.ts';
import { COPY_SHOWN, readHomeAudience } from '../feeds/index.ts';
import type { ListAudience } from '../lists/index.ts';
import type { Refusal } from '../refusal.ts';
import type { RegistryService } from '../registry/index.ts';
import { LISTED_REMOTE_ACTOR, viewerFilter } from '../views/visibility.ts';
import type { ApiIdPage, ClientViewer, StatusRecord } from './client-records.ts';
import { completeRecords, loadStatusRecords, rowRecord, statusRowSelect } from './status-loader.ts';

/**
 * Timelines as apps page them: by `api_id` (`max_id`, `since_id`, `min_id`), from this node's
 * database only, with the rules of the pages' feeds (feeds/feed.service.ts): the home timeline
 * is the viewer's own posts and reposts and those of people they follow (but members of their
 * exclusive lists); the public one this
 * node's listed public posts and the copies of other nodes' public posts kept here; mutes and
 * blocks of views/visibility.ts leave posts out. The pages' feeds page by time and are left as
 * they are.
 */

export type PublicScope = TagScope;

export interface ClientTimelines {
  home(viewer: ClientViewer, page: ApiIdPage): Promise<StatusRecord[]>;
  public(
    viewer: ClientViewer | null,
    query: { scope: PublicScope; onlyMedia: boolean },
    page: ApiIdPage,
  ): Promise<StatusRecord[]>;
  tag(
    viewer: ClientViewer | null,
    query: { tag: string; scope: PublicScope; onlyMedia: boolean },
    page: ApiIdPage,
  ): Promise<StatusRecord[]>;
  /** The viewer's list `listId` (lists/list-audience.ts); refused when it is not theirs. */
  list(
    viewer: ClientViewer,
    listId: string,
    page: ApiIdPage,
  ): Promise<Result<StatusRecord[], Refusal>>;
}

/** Rows read at most per page: a viewer who muted nearly everyone gets a short page, cheaply. */
export const CLIENT_SCAN_MAX_ROWS = 400;
const SCAN_BATCH = 40;

/** Copies listed in timelines: written from what their node sent (feeds' rule). */

const WITH_MEDIA = { media: { some: {} } } as const satisfies Prisma.PostWhereInput;

/** The ids of a page: strictly between the cursors; `min_id` reads upward from its id. */
function idRange(page: ApiIdPage): { where: Prisma.PostWhereInput; ascending: boolean } {
  const ascending = page.minId !== undefined && page.sinceId === undefined;
  const above = page.sinceId ?? page.minId;
  const apiId: Prisma.BigIntFilter = {};
  if (page.maxId !== undefined) apiId.lt = page.maxId;
  if (above !== undefined) apiId.gt = above;
  return { where: Object.keys(apiId).length > 0 ? { apiId } : {}, ascending };
}

/** Who wrote a record and, for a reblog, who reblogged: what mutes and blocks compare. */
function shapeOf(record: StatusRecord) {
  return record.reblog
    ? { author: record.reblog.account, repostedBy: record.account }
    : { author: record.account, repostedBy: null };
}

const newestFirst = (a: StatusRecord, b: StatusRecord) =>
  a.apiId < b.apiId ? 1 : a.apiId > b.apiId ? -1 : 0;

export function createClientTimelines(deps: {
  prisma: PrismaClient;
  self: string;
  registry: Pick<RegistryService, 'blockedDomains'>;
  listAudience(viewer: ClientViewer, listId: string): Promise<Result<ListAudience, Refusal>>;
}): ClientTimelines {
  const { prisma, self, registry } = deps;

  /**
   * `page.limit` rows of `where` that `keep` keeps, in the page's order, read batch after batch
   * up to CLIENT_SCAN_MAX_ROWS (the rows are read whole: a page where nothing is hidden is one
   * query); then the records complete, newest first.
   */
  async function pageOf(
    viewer: ClientViewer | null,
    where: Prisma.PostWhereInput,
    page: ApiIdPage,
    keep: (shape: ReturnType<typeof shapeOf>) => boolean,
  ): Promise<StatusRecord[]> {
    const range = idRange(page);
    const kept: StatusRecord[] = [];
    let skip = 0;
    for (;;) {
      const take = skip === 0 ? page.limit : Math.max(page.limit, SCAN_BATCH);
      const rows = await prisma.post.findMany({
        where: { AND: [where, range.where] },
        orderBy: { apiId: range.ascending ? 'asc' : 'desc' },
        skip,
        take,
        select: statusRowSelect,
      });
      skip += rows.length;
      for (const row of rows) {
        const record = rowRecord(row, self);
        if (record && keep(shapeOf(record)) && kept.length < page.limit) kept.push(record);
      }
      if (rows.length < take || kept.length >= page.limit || skip >= CLIENT_SCAN_MAX_ROWS) break;
    }
    const records = await completeRecords(prisma, kept, viewer, self);
    return records.sort(newestFirst);
  }

  return {
    async home(viewer, page) {
      const { where, filter } = await readHomeAudience({ prisma, registry, self }, viewer);
      return pageOf(viewer, where, page, (shape) => !filter.hides(shape));
    },

    async public(viewer, query, page) {
      const [blocked, filter] = await Promise.all([
        registry.blockedDomains(),
        viewerFilter(prisma, { viewer, self, operatorMutes: query.scope !== 'local' }),
      ]);
      const local = { ...TIMELINE_LIVE, ...LISTED, ...TOP_LEVEL };
      const copies = {
        apId: { not: null },
        deletedAt: null,
        remoteAuthor: LISTED_REMOTE_ACTOR,
        ...COPY_SHOWN,
        ...LISTED,
        ...TOP_LEVEL,
      } as const satisfies Prisma.PostWhereInput;
      const scoped: Prisma.PostWhereInput =
        query.scope === 'local'
          ? local
          : query.scope === 'remote'
            ? copies
            : { OR: [local, copies] };
      return pageOf(
        viewer,
        query.onlyMedia ? { AND: [scoped, WITH_MEDIA] } : scoped,
        page,
        (shape) => !filter.hides(shape) && !blocked.has(shape.author.domain),
      );
    },

    async list(viewer, listId, page) {
      const audience = await deps.listAudience(viewer, listId);
      if (!audience.ok) return audience;
      const { where, filter, blocked } = audience.value;
      if (!where) return ok([]);
      return ok(
        await pageOf(
          viewer,
          where,
          page,
          (shape) => !filter.hides(shape) && !blocked.has(shape.author.domain),
        ),
      );
    },

    async tag(viewer, query, page) {
      const [blocked, filter] = await Promise.all([
        registry.blockedDomains(),
        viewerFilter(prisma, { viewer, self, operatorMutes: query.scope !== 'local' }),
      ]);
      const range = idRange(page);
      const rows = await prisma.$queryRaw<{ id: string }[]>(
        clientTagPageSql(
          query.tag,
          page.maxId ?? null,
          page.sinceId ?? page.minId ?? null,
          range.ascending,
          query.scope,
          query.onlyMedia,
          // Muted and blocked authors are left out after the query: read a little more.
          Math.min(page.limit * 2, CLIENT_SCAN_MAX_ROWS),
        ),
      );
      const records = await loadStatusRecords(prisma, {
        rowIds: rows.map((r) => r.id),
        viewer,
        self,
      });
      return records
        .filter(
          (r) =>
            !filter.hides({ author: r.account, repostedBy: null }) &&
            !blocked.has(r.account.domain),
        )
        .slice(0, page.limit)
        .sort(newestFirst);
    },
  };
}
