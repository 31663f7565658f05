import { localActorKey, type Db } from '@swarm/db';
import type { ThreadService } from '../feeds/index.ts';
import { readListAudience } from '../lists/index.ts';
import type { Logger } from '../logger.ts';
import type { RegistryService } from '../registry/index.ts';
import type { AccountRecord, ClientViewer, StatusRecord } from './client-records.ts';
import { createClientTimelines, type ClientTimelines } from './client-timelines.ts';
import { actorsOf, type ActorPage } from './status-actors.ts';
import { readableRow, readableRowId } from './status-access.ts';
import { statusContext, type StatusContext } from './status-context.ts';
import {
  accountRemoteSelect,
  accountUserSelect,
  loadStatusRecords,
  recordFor,
  remoteAccount,
  userAccount,
  viewerStates,
} from './status-loader.ts';

/**
 * The read model of the client API (docs/clients.md): statuses by the ids apps hold, their
 * threads and who liked or reposted them, timelines paged by `api_id`, people by row id. It
 * reads this node's database (a thread of another node's post is refreshed on the thread
 * service's budgets) and applies the visibility rules of views/visibility.ts.
 */
export interface ClientReads {
  /** A status the viewer may read, by `api_id`; null when unknown or not for them (404). */
  status(viewer: ClientViewer | null, apiId: bigint): Promise<StatusRecord | null>;
  /** `status` for a row id (an action's target just resolved, a post just written). */
  statusByRow(viewer: ClientViewer | null, rowId: string): Promise<StatusRecord | null>;
  /** Rows as records in the order given, without the visibility check (the caller did it). */
  statusesByRows(viewer: ClientViewer | null, rowIds: readonly string[]): Promise<StatusRecord[]>;
  /**
   * Records read for nobody in particular, as each of `viewerIds` sees them (their likes,
   * reposts, bookmarks), in one read for all of them: the streams' many receivers.
   */
  forViewers(
    records: readonly StatusRecord[],
    viewerIds: readonly string[],
  ): Promise<(viewerId: string, record: StatusRecord) => StatusRecord>;
  /** The viewer's own repost of the post in row `rowId` (its reblog status), if any. */
  repostOf(viewer: ClientViewer, rowId: string): Promise<StatusRecord | null>;
  /** The row id of `apiId` when the viewer may read it. */
  readableRow(viewer: ClientViewer | null, apiId: bigint): Promise<string | null>;
  context(viewer: ClientViewer | null, rowId: string): Promise<StatusContext>;
  favouritedBy(rowId: string, page: ActorPageQuery): Promise<ActorPage>;
  rebloggedBy(rowId: string, page: ActorPageQuery): Promise<ActorPage>;
  timelines: ClientTimelines;
  /** A person by row id (a local user or a remote actor); null when unknown or hidden. */
  account(id: string): Promise<AccountRecord | null>;
}

export interface ActorPageQuery {
  limit: number;
  maxId?: { at: Date; id: string };
  sinceId?: { at: Date; id: string };
}

export interface ClientReadsDeps {
  db: Db;
  logger: Logger;
  config: { domain: string };
  registry: Pick<RegistryService, 'blockedDomains'>;
  threads: Pick<ThreadService, 'get'>;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function createClientReads(deps: ClientReadsDeps): ClientReads {
  const prisma = deps.db.prisma;
  const self = deps.config.domain;
  const load = (viewer: ClientViewer | null, rowIds: readonly string[]) =>
    loadStatusRecords(prisma, { rowIds, viewer, self });

  return {
    async status(viewer, apiId) {
      const rowId = await readableRow(prisma, viewer, apiId, self);
      return rowId ? ((await load(viewer, [rowId]))[0] ?? null) : null;
    },
    async statusByRow(viewer, rowId) {
      if (!UUID.test(rowId) || !(await readableRowId(prisma, viewer, rowId, self))) return null;
      return (await load(viewer, [rowId]))[0] ?? null;
    },
    statusesByRows: load,
    async forViewers(records, viewerIds) {
      const states = await viewerStates(prisma, viewerIds, records);
      return (viewerId, record) => recordFor(record, viewerId, states);
    },
    async repostOf(viewer, rowId) {
      const repost = await prisma.repost.findUnique({
        where: { postId_actorKey: { postId: rowId, actorKey: localActorKey(viewer.id) } },
        select: { repostPostId: true },
      });
      if (!repost?.repostPostId) return null;
      return (await load(viewer, [repost.repostPostId]))[0] ?? null;
    },
    readableRow: (viewer, apiId) => readableRow(prisma, viewer, apiId, self),
    context: (viewer, rowId) =>
      statusContext({ prisma, self, logger: deps.logger, threads: deps.threads }, viewer, rowId),
    favouritedBy: (rowId, page) =>
      actorsOf(prisma, { kind: 'likes', postId: rowId, self, ...page }),
    rebloggedBy: (rowId, page) =>
      actorsOf(prisma, { kind: 'reposts', postId: rowId, self, ...page }),
    timelines: createClientTimelines({
      prisma,
      self,
      registry: deps.registry,
      listAudience: (viewer, listId) => readListAudience(deps, viewer, listId),
    }),
    async account(id) {
      if (!UUID.test(id)) return null;
      const [user, actor] = await Promise.all([
        prisma.user.findFirst({
          where: { id, suspendedAt: null, pendingApproval: false },
          select: accountUserSelect,
        }),
        prisma.remoteActor.findUnique({ where: { id }, select: accountRemoteSelect }),
      ]);
      if (user) return userAccount(user, self);
      return actor && actor.nodeDomain !== self ? remoteAccount(actor) : null;
    },
  };
}
