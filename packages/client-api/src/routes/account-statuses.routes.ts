import { Hono } from 'hono';
import { ACCOUNT_POSTS_LIMIT, BOOKMARK_PAGE, LIKED_POSTS_LIMIT } from '@swarm/domain';
import { baseUrlForDomain } from '@swarm/contract';
import { requireToken, type BearerEnv } from '../bearer.ts';
import { statusEntities } from '../entities/status.ts';
import { apiError } from '../errors.ts';
import { formatApiId, parseApiId } from '../ids.ts';
import { pageLimit, setLinkHeader, textParam } from '../list-paging.ts';
import { readParams, type Params } from '../params.ts';
import { notFound, optionalViewer, tokenPerson } from '../route-kit.ts';

/**
 * `GET /api/v1/accounts/:id/statuses`: a person's posts, local or remote (the copies kept here),
 * paged by `api_id` with Link headers; `exclude_replies`, `exclude_reblogs`, `only_media`;
 * `pinned=true` is an empty list (the node has no pinned posts). `GET /api/v1/favourites`: the
 * posts the token's person liked, the latest like first, paged by the like; `GET
 * /api/v1/bookmarks` likewise, paged by the bookmark.
 */

const truthy = (value: unknown) => ['true', '1', true].includes(value as string);

/** `max_id` and friends as api ids; a malformed one is a page of nothing. */
function apiIdParam(params: Params, name: string): bigint | null | undefined {
  const text = textParam(params, name);
  return text === undefined ? undefined : parseApiId(text);
}

export function accountStatusRoutes() {
  const app = new Hono<BearerEnv>();
  app.get('/api/v1/accounts/:id/statuses', async (c) => {
    const { deps } = c.var;
    const { node } = deps;
    const viewer = await optionalViewer(c, ['read:statuses']);
    if (viewer instanceof Response) return viewer;
    const record = await node.appAccounts.byId(c.req.param('id'));
    if (!record) return notFound(c);
    const read = await readParams(c.req.raw);
    if (!read.ok) return apiError(c, 400, read.reason);
    const params = read.value;
    const limit = pageLimit(params, ACCOUNT_POSTS_LIMIT);
    if (truthy(params.pinned)) return c.json([]);
    const maxId = apiIdParam(params, 'max_id');
    const sinceId = apiIdParam(params, 'since_id');
    const minId = apiIdParam(params, 'min_id');
    if (maxId === null || sinceId === null || minId === null) return c.json([]);
    const page = await node.appAccounts.posts(viewer, record, {
      maxId,
      sinceId,
      minId,
      limit,
      excludeReplies: truthy(params.exclude_replies),
      excludeReblogs: truthy(params.exclude_reblogs),
      onlyMedia: truthy(params.only_media),
    });
    const records = await node.clientReads.statusesByRows(viewer, page.rowIds);
    const first = page.apiIds[0];
    const last = page.apiIds[page.apiIds.length - 1];
    const keep: Record<string, string> = {};
    for (const flag of ['exclude_replies', 'exclude_reblogs', 'only_media']) {
      if (truthy(params[flag])) keep[flag] = 'true';
    }
    setLinkHeader(
      c,
      baseUrlForDomain(node.config.domain),
      {
        oldest: last === undefined ? null : formatApiId(last),
        newest: first === undefined ? null : formatApiId(first),
      },
      limit,
      keep,
    );
    return c.json(statusEntities(records, node.config.domain));
  });

  app.get('/api/v1/favourites', requireToken(['read:favourites'], { user: true }), async (c) => {
    const { node } = c.var.deps;
    const read = await readParams(c.req.raw);
    if (!read.ok) return apiError(c, 400, read.reason);
    const limit = pageLimit(read.value, LIKED_POSTS_LIMIT);
    const userId = c.var.grant.userId!;
    const page = await node.appAccounts.liked(userId, {
      maxId: textParam(read.value, 'max_id'),
      minId: textParam(read.value, 'min_id') ?? textParam(read.value, 'since_id'),
      limit,
    });
    const user = await node.db.prisma.user.findUnique({
      where: { id: userId },
      select: { id: true, handle: true },
    });
    const records = await node.clientReads.statusesByRows(user, page.rowIds);
    setLinkHeader(c, baseUrlForDomain(node.config.domain), page, limit);
    return c.json(statusEntities(records, node.config.domain));
  });

  app.get('/api/v1/bookmarks', requireToken(['read:bookmarks'], { user: true }), async (c) => {
    const { node } = c.var.deps;
    const read = await readParams(c.req.raw);
    if (!read.ok) return apiError(c, 400, read.reason);
    const limit = pageLimit(read.value, BOOKMARK_PAGE);
    const viewer = await tokenPerson(c);
    if (!viewer) return apiError(c, 401, 'The access token is invalid');
    // Paged by the bookmark (newest bookmarked first): the cursors are the domain's, opaque.
    const page = await node.bookmarks.list(viewer, {
      before: textParam(read.value, 'max_id'),
      after: textParam(read.value, 'min_id') ?? textParam(read.value, 'since_id'),
      limit,
    });
    // A cursor that is not one of ours is a page of nothing, as an unknown id is.
    if (!page.ok) return c.json([]);
    const { entries } = page.value;
    const records = await node.clientReads.statusesByRows(
      viewer,
      entries.map((e) => e.postRowId),
    );
    setLinkHeader(
      c,
      baseUrlForDomain(node.config.domain),
      { oldest: page.value.next, newest: page.value.prev },
      limit,
    );
    return c.json(statusEntities(records, node.config.domain));
  });
  return app;
}
