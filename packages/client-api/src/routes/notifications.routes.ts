import { Hono, type Context } from 'hono';
import { baseUrlForDomain } from '@swarm/contract';
import {
  APP_NOTIFICATIONS_LIMIT,
  NOTIFICATION_KINDS,
  type AppNotificationRow,
  type NotificationKind,
} from '@swarm/domain';
import { requireToken, type BearerEnv } from '../bearer.ts';
import { statusEntity } from '../entities/status.ts';
import { apiError } from '../errors.ts';
import { formatApiId, parseApiId } from '../ids.ts';
import { listParam, pageLimit, setLinkHeader, textParam } from '../list-paging.ts';
import { readParams } from '../params.ts';
import { accountJson, notFound } from '../route-kit.ts';

/**
 * Notifications (docs/clients.md "Notifications"), paged by their `api_id` with Link headers.
 * Our kinds as Mastodon's types: like → `favourite`, repost → `reblog`, follow → `follow`,
 * mention and reply → `mention`. Each carries its `account` and, but for follows, its `status`;
 * one whose post is not stored here (a deleted post; a mention in a remote post never copied,
 * until the background read of `fetchMissingPosts` has kept it) or whose actor has no row is
 * left out: apps expect those fields, and an entry without them would only show as broken.
 * Dismiss and clear delete notifications, in our pages too.
 */

const MASTODON_TYPE: Record<NotificationKind, string> = {
  like: 'favourite',
  repost: 'reblog',
  follow: 'follow',
  mention: 'mention',
  reply: 'mention',
};

/** Our kinds a Mastodon type covers; the types we never make cover none. */
function kindsOf(types: readonly string[]): NotificationKind[] {
  return NOTIFICATION_KINDS.filter((kind) => types.includes(MASTODON_TYPE[kind]));
}

/** Posts of notifications fetched in the background per request, at most. */
const FETCHES_PER_READ = 4;

/**
 * The posts of notifications that name a remote post not stored here (a mention in a post of
 * someone nobody here follows) are read from their nodes in the background, through the thread
 * service and its budgets, and kept: the app's next read shows those notifications. Nobody
 * waits for them.
 */
function fetchMissingPosts(
  c: Context<BearerEnv>,
  rows: readonly AppNotificationRow[],
  viewer: { id: string; handle: string; showNsfw: boolean } | null,
) {
  const { node } = c.var.deps;
  const missing = [
    ...new Set(
      rows.flatMap((r) => (r.type !== 'follow' && !r.postId && r.postApId ? [r.postApId] : [])),
    ),
  ].slice(0, FETCHES_PER_READ);
  for (const apId of missing) {
    void node.threads
      .get(viewer, apId)
      .catch((err: unknown) =>
        node.logger.warn({ err, apId }, 'client API: could not fetch a notification post'),
      );
  }
}

async function render(c: Context<BearerEnv>, rows: readonly AppNotificationRow[]) {
  const { node } = c.var.deps;
  const domain = node.config.domain;
  const viewer = await node.db.prisma.user.findUnique({
    where: { id: c.var.grant.userId! },
    select: { id: true, handle: true, showNsfw: true },
  });
  const accounts = await node.appAccounts.byIds(
    rows.flatMap((r) => (r.accountId ? [r.accountId] : [])),
  );
  const postIds = [...new Set(rows.flatMap((r) => (r.postId ? [r.postId] : [])))];
  const statuses = await node.clientReads.statusesByRows(viewer, postIds);
  fetchMissingPosts(c, rows, viewer);
  const byRow = new Map(statuses.map((s) => [s.rowId, s]));
  return rows.flatMap((row) => {
    const account = row.accountId ? accounts.get(row.accountId) : undefined;
    if (!account) return [];
    const status = row.postId ? byRow.get(row.postId) : undefined;
    if (row.type !== 'follow' && !status) return [];
    return [
      {
        id: formatApiId(row.apiId),
        type: MASTODON_TYPE[row.type],
        created_at: row.createdAt.toISOString(),
        group_key: `ungrouped-${formatApiId(row.apiId)}`,
        account: accountJson(c.var.deps, account),
        ...(row.type !== 'follow' && status ? { status: statusEntity(status, domain) } : {}),
      },
    ];
  });
}

export function notificationRoutes() {
  const app = new Hono<BearerEnv>();
  const read = requireToken(['read:notifications'], { user: true });
  const write = requireToken(['write:notifications'], { user: true });

  app.get('/api/v1/notifications', read, async (c) => {
    const { node } = c.var.deps;
    const got = await readParams(c.req.raw);
    if (!got.ok) return apiError(c, 400, got.reason);
    const params = got.value;
    const limit = pageLimit(params, APP_NOTIFICATIONS_LIMIT);
    const ids = ['max_id', 'since_id', 'min_id'].map((name) => {
      const text = textParam(params, name);
      return text === undefined ? undefined : parseApiId(text);
    });
    if (ids.some((id) => id === null)) return c.json([]);
    const [maxId, sinceId, minId] = ids as (bigint | undefined)[];
    const types = listParam(params, 'types');
    const excluded = listParam(params, 'exclude_types') ?? [];
    let kinds: NotificationKind[] | undefined = types ? kindsOf(types) : undefined;
    if (excluded.length) {
      const out = new Set(kindsOf(excluded));
      kinds = (kinds ?? [...NOTIFICATION_KINDS]).filter((k) => !out.has(k));
    }
    const rows = await node.notifications.appPage(c.var.grant.userId!, {
      maxId,
      sinceId,
      minId,
      limit,
      kinds,
      accountId: textParam(params, 'account_id'),
    });
    const keep: Record<string, string[]> = {};
    if (types) keep.types = types;
    if (excluded.length) keep.exclude_types = excluded;
    const first = rows[0];
    const last = rows[rows.length - 1];
    setLinkHeader(
      c,
      baseUrlForDomain(node.config.domain),
      {
        oldest: last ? formatApiId(last.apiId) : null,
        newest: first ? formatApiId(first.apiId) : null,
      },
      limit,
      keep,
    );
    return c.json(await render(c, rows));
  });

  app.post('/api/v1/notifications/clear', write, async (c) => {
    await c.var.deps.node.notifications.clear(c.var.grant.userId!);
    return c.json({});
  });

  app.get('/api/v1/notifications/:id', read, async (c) => {
    const apiId = parseApiId(c.req.param('id'));
    const row = apiId
      ? await c.var.deps.node.notifications.appGet(c.var.grant.userId!, apiId)
      : null;
    const [shown] = row ? await render(c, [row]) : [];
    return shown ? c.json(shown) : notFound(c);
  });

  app.post('/api/v1/notifications/:id/dismiss', write, async (c) => {
    const apiId = parseApiId(c.req.param('id'));
    const done = apiId
      ? await c.var.deps.node.notifications.dismiss(c.var.grant.userId!, apiId)
      : false;
    return done ? c.json({}) : notFound(c);
  });
  return app;
}
