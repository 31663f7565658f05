import type { Context } from 'hono';
import { Hono } from 'hono';
import { normaliseHashtag, type Refusal, type Result } from '@swarm/contract';
import type { ClientViewer, PublicScope, StatusRecord } from '@swarm/domain';
import { requireToken, type BearerEnv } from '../bearer.ts';
import { statusEntities } from '../entities/status.ts';
import { apiError, refusalAnswer } from '../errors.ts';
import { linkHeader, readApiIdPage, statusCursors, TIMELINE_LIMIT } from '../paging.ts';
import { booleanValue, readParams, type Params } from '../params.ts';
import { optionalToken, viewerOf } from '../viewer.ts';

/**
 * Timelines (docs/clients.md "Timelines"): home (a token of the person), public and tag (anyone,
 * as Mastodon allows by default), paged by `api_id` with Mastodon's `Link` header, read from
 * this node's database only.
 */

type C = Context<BearerEnv>;

const READ = ['read:statuses'];

function flag(params: Params, name: string): Result<boolean> {
  const raw = params[name];
  if (raw === undefined) return { ok: true, value: false };
  const value = booleanValue(raw);
  return value === undefined
    ? { ok: false, reason: `${name} must be true or false` }
    : { ok: true, value };
}

/** `local` and `remote` as Mastodon reads them (both: nothing is left). */
function scopeOf(params: Params): Result<{ scope: PublicScope; onlyMedia: boolean }> {
  const local = flag(params, 'local');
  const remote = flag(params, 'remote');
  const onlyMedia = flag(params, 'only_media');
  if (!local.ok) return local;
  if (!remote.ok) return remote;
  if (!onlyMedia.ok) return onlyMedia;
  const scope = local.value ? 'local' : remote.value ? 'remote' : 'all';
  return { ok: true, value: { scope, onlyMedia: onlyMedia.value } };
}

async function answer(
  c: C,
  read: (
    viewer: ClientViewer | null,
    params: Params,
  ) => Promise<Result<StatusRecord[], string | Refusal>>,
) {
  const viewer = await viewerOf(c);
  if (viewer === undefined) return apiError(c, 401, 'The access token is invalid');
  const params = await readParams(c.req.raw);
  if (!params.ok) return apiError(c, 400, params.reason);
  const records = await read(viewer, params.value);
  if (!records.ok) {
    return typeof records.reason === 'string'
      ? apiError(c, 422, `Validation failed: ${records.reason}`)
      : refusalAnswer(c, records.reason);
  }
  const { domain } = c.var.deps.node.config;
  const link = linkHeader(domain, c.req.raw, statusCursors(records.value));
  if (link) c.header('Link', link);
  return c.json(statusEntities(records.value, domain));
}

export function timelineRoutes() {
  const app = new Hono<BearerEnv>();

  app.get('/api/v1/timelines/home', requireToken(READ, { user: true }), (c) =>
    answer(c, async (viewer, params) => {
      const page = readApiIdPage(params, TIMELINE_LIMIT);
      if (!page.ok) return page;
      const records = await c.var.deps.node.clientReads.timelines.home(viewer!, page.value);
      return { ok: true, value: records };
    }),
  );

  app.get('/api/v1/timelines/public', optionalToken(READ), (c) =>
    answer(c, async (viewer, params) => {
      const page = readApiIdPage(params, TIMELINE_LIMIT);
      if (!page.ok) return page;
      const scope = scopeOf(params);
      if (!scope.ok) return scope;
      const timelines = c.var.deps.node.clientReads.timelines;
      return { ok: true, value: await timelines.public(viewer, scope.value, page.value) };
    }),
  );

  app.get('/api/v1/timelines/list/:id', requireToken(['read:lists'], { user: true }), (c) =>
    answer(c, async (viewer, params) => {
      const page = readApiIdPage(params, TIMELINE_LIMIT);
      if (!page.ok) return page;
      const timelines = c.var.deps.node.clientReads.timelines;
      const records = await timelines.list(viewer!, c.req.param('id'), page.value);
      return records;
    }),
  );

  app.get('/api/v1/timelines/tag/:hashtag', optionalToken(READ), (c) =>
    answer(c, async (viewer, params) => {
      const page = readApiIdPage(params, TIMELINE_LIMIT);
      if (!page.ok) return page;
      const scope = scopeOf(params);
      if (!scope.ok) return scope;
      const tag = normaliseHashtag(c.req.param('hashtag'));
      // A name no post can carry has no posts (Mastodon answers an empty list too).
      if (!tag) return { ok: true, value: [] };
      const timelines = c.var.deps.node.clientReads.timelines;
      return {
        ok: true,
        value: await timelines.tag(viewer, { tag, ...scope.value }, page.value),
      };
    }),
  );

  return app;
}
