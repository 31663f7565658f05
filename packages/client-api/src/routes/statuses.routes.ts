import type { Context } from 'hono';
import { Hono } from 'hono';
import {
  baseUrlForDomain,
  formatSwarmPostId,
  ok,
  refuse,
  type CreatePostInput,
  type Refusal,
  type Result,
} from '@swarm/contract';
import {
  parseActorCursor,
  POST_KEY_MAX_CHARS,
  type ClientViewer,
  type SignedKind,
  type StatusRecord,
} from '@swarm/domain';
import { signDeletionForApp, signForApp, signPostForApp } from '../app-signing.ts';
import { requireToken, type BearerEnv } from '../bearer.ts';
import { accountEntity } from '../entities/account.ts';
import { statusEntities, statusEntity } from '../entities/status.ts';
import { apiError, refusalAnswer } from '../errors.ts';
import { parseApiId } from '../ids.ts';
import { ACCOUNT_LIST_LIMIT, readLimit } from '../paging.ts';
import { readParams, type Params } from '../params.ts';
import { grantOf, optionalToken, viewerOf } from '../viewer.ts';

/**
 * Statuses (docs/clients.md "Statuses"): read one, its thread, who liked or reposted it; write,
 * delete, like, repost, bookmark and their undoing. Reads answer what the viewer may see (else 404, as
 * for an unknown id); writes go through the node's post and interaction actions, and anything
 * that needs the person's signature through `signForApp`.
 */

type C = Context<BearerEnv>;

const READ = ['read:statuses'];
const WRITE = ['write:statuses'];
const FAVOURITES = ['write:favourites'];
const BOOKMARKS = ['write:bookmarks'];

const notFound = (c: C) => apiError(c, 404, 'Record not found');
const invalid = (c: C, reason: string) => apiError(c, 422, `Validation failed: ${reason}`);

/** A domain refusal; an unknown post is Mastodon's `Record not found`. */
function refused(c: C, reason: Refusal) {
  return reason.code === 'POST_NOT_FOUND' ? notFound(c) : refusalAnswer(c, reason);
}

/** The viewer, or an answer when the token's person is gone. */
async function viewerOrAnswer(c: C): Promise<{ viewer: ClientViewer | null } | Response> {
  const viewer = await viewerOf(c);
  if (viewer === undefined) return apiError(c, 401, 'The access token is invalid');
  return { viewer };
}

/** The person of a user token (the routes that need one put `requireToken(…, { user })` first). */
async function actingViewer(c: C): Promise<ClientViewer | Response> {
  const viewer = await viewerOf(c);
  return viewer ?? apiError(c, 401, 'The access token is invalid');
}

/** The status `:id` names when the viewer may read it. */
async function statusOf(c: C, viewer: ClientViewer | null): Promise<StatusRecord | null> {
  const apiId = parseApiId(c.req.param('id'));
  if (apiId === null) return null;
  return c.var.deps.node.clientReads.status(viewer, apiId);
}

/** The id the node's actions name a post by: a UUID here, `swarm:{domain}:{id}` for a copy. */
function actionPostId(record: StatusRecord): string {
  const target = record.reblog ?? record;
  return target.isRemote
    ? formatSwarmPostId({ domain: target.nodeDomain, postId: target.postId })
    : target.rowId;
}

const TRUE = new Set([true, 'true', '1', 'on', 1]);
const FALSE = new Set([false, 'false', '0', 'off', 0, '']);

function readBoolean(params: Params, name: string): Result<boolean | undefined> {
  const raw = params[name];
  if (raw === undefined) return ok(undefined);
  if (TRUE.has(raw as never)) return ok(true);
  if (FALSE.has(raw as never)) return ok(false);
  return { ok: false, reason: `${name} must be true or false` };
}

function readString(params: Params, name: string): Result<string | undefined> {
  const raw = params[name];
  if (raw === undefined || raw === null) return ok(undefined);
  if (typeof raw !== 'string') return { ok: false, reason: `${name} must be text` };
  return ok(raw);
}

const VISIBILITY = {
  public: 'public',
  unlisted: 'unlisted',
  private: 'followers',
} as const;

export const DIRECT_REFUSED =
  "Direct messages are end-to-end encrypted and can only be sent from the node's pages";

/** The post a `POST /api/v1/statuses` asks for, or why it cannot be one. */
async function postInput(
  c: C,
  viewer: ClientViewer,
  params: Params,
): Promise<Result<CreatePostInput, Refusal>> {
  const bad = (message: string) => refuse('INVALID_REQUEST', `Validation failed: ${message}`);
  const status = readString(params, 'status');
  const spoiler = readString(params, 'spoiler_text');
  const visibilityRaw = readString(params, 'visibility');
  const sensitive = readBoolean(params, 'sensitive');
  for (const field of [status, spoiler, visibilityRaw, sensitive]) {
    if (!field.ok) return bad(field.reason);
  }
  if (!status.ok || !spoiler.ok || !visibilityRaw.ok || !sensitive.ok) return bad('bad field');
  if (params.poll !== undefined) return bad('this node has no polls');
  if (params.scheduled_at !== undefined && params.scheduled_at !== '') {
    return bad('this node does not schedule posts');
  }
  const visibilityName = visibilityRaw.value ?? 'public';
  if (visibilityName === 'direct') return bad(DIRECT_REFUSED);
  if (!(visibilityName in VISIBILITY)) {
    return bad('visibility must be public, unlisted, private or direct');
  }
  const visibility = VISIBILITY[visibilityName as keyof typeof VISIBILITY];

  const rawIds = params.media_ids;
  const mediaIds = rawIds === undefined ? [] : Array.isArray(rawIds) ? rawIds : [rawIds];
  if (!mediaIds.every((id) => typeof id === 'string')) return bad('media_ids must be ids');
  if (mediaIds.length > 4) return bad('at most 4 media');
  // Only the person's own uploads not yet in a post (another's id is not theirs to use).
  const free =
    mediaIds.length > 0
      ? await c.var.deps.node.uploads.peek(viewer.id, mediaIds as string[])
      : new Map<string, { description: string }>();
  if (mediaIds.length > 0) {
    if (
      new Set(mediaIds).size !== mediaIds.length ||
      !mediaIds.every((id) => free.has(id as string))
    ) {
      return bad('media_ids names media that are not yours to attach, or are already in a post');
    }
  }

  // No content warnings on this node (docs/clients.md "Statuses"): the warning becomes the
  // first line of the text, and the post is marked sensitive.
  const warning = spoiler.value?.trim() ?? '';
  const text = status.value ?? '';
  const content = warning === '' ? text : text.trim() === '' ? warning : `${warning}\n${text}`;

  let replyToId: string | null = null;
  const replyRaw = params.in_reply_to_id;
  if (replyRaw !== undefined && replyRaw !== null && replyRaw !== '') {
    const apiId = parseApiId(typeof replyRaw === 'number' ? String(replyRaw) : replyRaw);
    const parent = apiId === null ? null : await c.var.deps.node.clientReads.status(viewer, apiId);
    if (!parent) return refuse('POST_NOT_FOUND', 'Record not found');
    const target = parent.reblog ?? parent;
    replyToId = target.isRemote
      ? formatSwarmPostId({ domain: target.nodeDomain, postId: target.postId })
      : target.rowId;
  }
  return ok({
    content,
    // The description an app set on the upload is the photo's alt text.
    media: mediaIds.map((uploadId) => ({
      uploadId: uploadId as string,
      altText: free.get(uploadId as string)?.description ?? '',
    })),
    isNsfw: (sensitive.value ?? false) || warning !== '',
    visibility,
    replyToId,
  });
}

export function statusRoutes() {
  const app = new Hono<BearerEnv>();

  app.get('/api/v1/statuses/:id', optionalToken(READ), async (c) => {
    const who = await viewerOrAnswer(c);
    if (who instanceof Response) return who;
    const record = await statusOf(c, who.viewer);
    if (!record) return notFound(c);
    return c.json(statusEntity(record, c.var.deps.node.config.domain));
  });

  app.get('/api/v1/statuses/:id/context', optionalToken(READ), async (c) => {
    const who = await viewerOrAnswer(c);
    if (who instanceof Response) return who;
    const record = await statusOf(c, who.viewer);
    if (!record) return notFound(c);
    const { node } = c.var.deps;
    const thread = await node.clientReads.context(who.viewer, (record.reblog ?? record).rowId);
    return c.json({
      ancestors: statusEntities(thread.ancestors, node.config.domain),
      descendants: statusEntities(thread.descendants, node.config.domain),
    });
  });

  for (const [path, kind] of [
    ['favourited_by', 'favouritedBy'],
    ['reblogged_by', 'rebloggedBy'],
  ] as const) {
    app.get(`/api/v1/statuses/:id/${path}`, optionalToken(READ), async (c) => {
      const who = await viewerOrAnswer(c);
      if (who instanceof Response) return who;
      const params = await readParams(c.req.raw);
      if (!params.ok) return apiError(c, 400, params.reason);
      const limit = readLimit(params.value, ACCOUNT_LIST_LIMIT);
      if (!limit.ok) return invalid(c, limit.reason);
      const cursor = (name: string) => {
        const raw = params.value[name];
        return typeof raw === 'string' && raw !== '' ? parseActorCursor(raw) : undefined;
      };
      const maxId = cursor('max_id');
      const sinceId = cursor('since_id') ?? cursor('min_id');
      if (maxId === null || sinceId === null) return invalid(c, 'not a cursor of this list');
      const record = await statusOf(c, who.viewer);
      if (!record) return notFound(c);
      const { node } = c.var.deps;
      const page = await node.clientReads[kind]((record.reblog ?? record).rowId, {
        limit: limit.value,
        maxId,
        sinceId,
      });
      const url = new URL(c.req.url);
      const base = `${baseUrlForDomain(node.config.domain)}${url.pathname}`;
      const links = [
        page.next ? `<${base}?max_id=${page.next}>; rel="next"` : null,
        page.prev ? `<${base}?since_id=${page.prev}>; rel="prev"` : null,
      ].filter((l) => l !== null);
      if (links.length > 0) c.header('Link', links.join(', '));
      return c.json(page.accounts.map((a) => accountEntity(a, node.config.domain)));
    });
  }

  app.post('/api/v1/statuses', requireToken(WRITE, { user: true }), async (c) => {
    const viewer = await actingViewer(c);
    if (viewer instanceof Response) return viewer;
    const { node } = c.var.deps;
    const params = await readParams(c.req.raw);
    if (!params.ok) return apiError(c, 400, params.reason);
    const key = c.req.header('idempotency-key');
    if (key !== undefined && (key === '' || key.length > POST_KEY_MAX_CHARS)) {
      return invalid(c, `Idempotency-Key must be 1 to ${POST_KEY_MAX_CHARS} characters`);
    }
    const grant = grantOf(c)!;
    // Read inside the key's claim: a retry answers the first post before its media ids (now
    // attached to that post) would be refused.
    const publish = async (): Promise<Result<string, Refusal>> => {
      const input = await postInput(c, viewer, params.value);
      if (!input.ok) return input;
      const signed = await signPostForApp(node, grant, viewer.id, input.value);
      const created = await node.actions.posts.create(
        viewer.id,
        signed ? { ...input.value, signed } : input.value,
      );
      return created.ok ? ok(created.value.post.id) : created;
    };
    // A retry with the same key, on any replica, answers the first request's post.
    const written = key
      ? await node.actions.postKeys.once(viewer.id, key, publish)
      : await publish();
    if (!written.ok) return refused(c, written.reason);
    const record = await node.clientReads.statusByRow(viewer, written.value);
    if (!record) return notFound(c);
    return c.json(statusEntity(record, node.config.domain));
  });

  app.delete('/api/v1/statuses/:id', requireToken(WRITE, { user: true }), async (c) => {
    const viewer = await actingViewer(c);
    if (viewer instanceof Response) return viewer;
    const { node } = c.var.deps;
    const record = await statusOf(c, viewer);
    // Someone else's status is not found, as Mastodon answers it (it looks among one's own).
    if (!record || record.isRemote || record.account.id !== viewer.id) return notFound(c);
    // Deleted here, and on the nodes holding a copy when the app can sign the statement.
    const signed = await signDeletionForApp(node, grantOf(c)!, viewer.id, record.rowId);
    const deleted = await node.ownership.deletePost(viewer.id, record.rowId, signed);
    if (!deleted.ok) return refused(c, deleted.reason);
    // The deleted status with its source text, for apps that offer to write it again.
    return c.json({ ...statusEntity(record, node.config.domain), text: record.content });
  });

  /** Like, repost and their undoing: the status after the act. */
  const interaction = (path: string, action: SignedKind, scopes: string[]) =>
    app.post(`/api/v1/statuses/:id/${path}`, requireToken(scopes, { user: true }), async (c) => {
      const viewer = await actingViewer(c);
      if (viewer instanceof Response) return viewer;
      const { node } = c.var.deps;
      const record = await statusOf(c, viewer);
      if (!record) return notFound(c);
      const postId = actionPostId(record);
      const signed = await signForApp(node, grantOf(c)!, {
        action,
        userId: viewer.id,
        postId,
      });
      if (!signed.ok) return refused(c, signed.reason);
      const acts = node.actions.interactions;
      const input = { postId, signed: signed.value };
      const done =
        action === 'like'
          ? await acts.like(viewer.id, input)
          : action === 'unlike'
            ? await acts.unlike(viewer.id, input)
            : action === 'repost'
              ? await acts.repost(viewer.id, input)
              : await acts.unrepost(viewer.id, input);
      if (!done.ok) return refused(c, done.reason);
      const target = record.reblog ?? record;
      const after = await node.clientReads.statusByRow(viewer, target.rowId);
      if (!after) return notFound(c);
      if (action === 'repost') {
        // Mastodon answers the new reblog: the viewer's repost row, wrapping the original.
        const reblog = await node.clientReads.repostOf(viewer, target.rowId);
        if (reblog) return c.json(statusEntity(reblog, node.config.domain));
      }
      return c.json(statusEntity(after, node.config.domain));
    });
  /** Bookmarks are the person's own, never federated: no signature, on any readable status. */
  for (const [path, keep] of [
    ['bookmark', true],
    ['unbookmark', false],
  ] as const) {
    app.post(`/api/v1/statuses/:id/${path}`, requireToken(BOOKMARKS, { user: true }), async (c) => {
      const viewer = await actingViewer(c);
      if (viewer instanceof Response) return viewer;
      const { node } = c.var.deps;
      const record = await statusOf(c, viewer);
      if (!record) return notFound(c);
      const who = { ...viewer, showNsfw: true };
      const done = keep
        ? await node.bookmarks.bookmark(who, actionPostId(record))
        : await node.bookmarks.unbookmark(who, actionPostId(record));
      if (!done.ok) return refused(c, done.reason);
      const after = await node.clientReads.statusByRow(viewer, record.rowId);
      return after ? c.json(statusEntity(after, node.config.domain)) : notFound(c);
    });
  }

  interaction('favourite', 'like', FAVOURITES);
  interaction('unfavourite', 'unlike', FAVOURITES);
  interaction('reblog', 'repost', WRITE);
  interaction('unreblog', 'unrepost', WRITE);

  return app;
}
