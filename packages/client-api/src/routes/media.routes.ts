import { Hono, type Context } from 'hono';
import { checkUploadDescription, type UploadDescription } from '@swarm/domain';
import { requireToken, type BearerEnv } from '../bearer.ts';
import { uploadEntity } from '../entities/status.ts';
import { apiError, refusalAnswer } from '../errors.ts';
import { readForm } from '../form-files.ts';
import type { Params } from '../params.ts';
import { acceptUpload } from '../uploads.ts';

/**
 * Media (docs/clients.md "Media"): `POST /api/v2/media` (and v1) takes an image as the
 * multipart field `file`, with `description` and `focus` ("x,y"); the node processes it while
 * the request waits, so the answer is 200 with its URL (never 202). `GET` and `PUT
 * /api/v1/media/:id` read it and change its description and focal point until it is in a post.
 * A post names it in `media_ids`; its description becomes the alt text. Others' uploads do not
 * exist for the caller (404).
 */

type C = Context<BearerEnv>;

const WRITE = ['write:media'];

/** `description` and `focus` as the domain takes them, or what is wrong (422). */
function describing(params: Params): UploadDescription | string {
  const out: UploadDescription = {};
  const { description, focus } = params;
  if (description !== undefined && description !== null) {
    if (typeof description !== 'string') return 'description must be text';
    out.description = description.replace(/\r\n?/g, '\n');
  }
  if (focus !== undefined && focus !== null && focus !== '') {
    const match =
      typeof focus === 'string' ? /^\s*(-?[\d.]+)\s*,\s*(-?[\d.]+)\s*$/.exec(focus) : null;
    if (!match) return 'focus must be two numbers, "x,y"';
    out.focus = { x: Number(match[1]), y: Number(match[2]) };
  }
  return out;
}

async function upload(c: C) {
  const { node } = c.var.deps;
  const ownerId = c.var.grant.userId!;
  const form = await readForm(c.req.raw);
  if (!form.ok) return apiError(c, 400, form.reason);
  const file = form.value.files.file;
  if (!file) return apiError(c, 422, 'Validation failed: file is missing (a multipart field)');
  const described = describing(form.value.params);
  if (typeof described === 'string') return apiError(c, 422, `Validation failed: ${described}`);
  // Checked before the image is stored: a refused description leaves no upload behind.
  const checked = checkUploadDescription(described);
  if (!checked.ok) return refusalAnswer(c, checked.reason);
  const accepted = await acceptUpload(c, { ownerId, purpose: 'post', file, field: 'file' });
  if (!accepted.ok) return accepted.response;
  let view = accepted.upload;
  if (described.description !== undefined || described.focus) {
    const updated = await node.uploads.describe(ownerId, view.id, described);
    if (!updated.ok) return refusalAnswer(c, updated.reason);
    view = updated.value;
  }
  return c.json(uploadEntity(view, node.config.domain));
}

export function mediaRoutes() {
  const app = new Hono<BearerEnv>();
  const user = { user: true } as const;

  app.post('/api/v2/media', requireToken(WRITE, user), upload);
  app.post('/api/v1/media', requireToken(WRITE, user), upload);

  app.get('/api/v1/media/:id', requireToken(WRITE, user), async (c) => {
    const { node } = c.var.deps;
    const view = await node.uploads.get(c.var.grant.userId!, c.req.param('id'));
    return view
      ? c.json(uploadEntity(view, node.config.domain))
      : apiError(c, 404, 'Record not found');
  });

  app.put('/api/v1/media/:id', requireToken(WRITE, user), async (c) => {
    const { node } = c.var.deps;
    const form = await readForm(c.req.raw);
    if (!form.ok) return apiError(c, 400, form.reason);
    const described = describing(form.value.params);
    if (typeof described === 'string') return apiError(c, 422, `Validation failed: ${described}`);
    const updated = await node.uploads.describe(c.var.grant.userId!, c.req.param('id'), described);
    return updated.ok
      ? c.json(uploadEntity(updated.value, node.config.domain))
      : refusalAnswer(c, updated.reason);
  });

  return app;
}
