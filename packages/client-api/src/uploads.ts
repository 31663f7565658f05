import type { Context } from 'hono';
import type { UploadView } from '@swarm/domain';
import type { BearerEnv } from './bearer.ts';
import { apiError, refusalAnswer } from './errors.ts';

/**
 * An image an app uploads (a post's photo, an avatar, a header), through the node's upload
 * path, under the same per-person budget as the web app's uploads route (apps/web
 * `api/uploads`). Answers the upload, or the response that refuses it: 429 over the budget,
 * 422 for an image the node cannot take (Mastodon's validation failure of that field; a file
 * too large is a 413 on the media endpoints, as Mastodon answers there).
 */

const UPLOAD_LIMIT = 'uploads-user';
const UPLOADS_PER_USER = { points: 60, windowMs: 60 * 60_000 };

export async function acceptUpload(
  c: Context<BearerEnv>,
  input: { ownerId: string; purpose: 'post' | 'avatar' | 'header'; file: File; field: string },
): Promise<{ ok: true; upload: UploadView } | { ok: false; response: Response }> {
  const { node } = c.var.deps;
  const taken = await node.limits.take(UPLOAD_LIMIT, input.ownerId, UPLOADS_PER_USER);
  if (!taken.ok) {
    const response = apiError(c, 429, `Too many uploads; retry in ${taken.retryAfterSec} s.`, {
      headers: { 'retry-after': String(taken.retryAfterSec) },
    });
    return { ok: false, response };
  }
  const accepted = await node.uploads.accept({
    ownerId: input.ownerId,
    purpose: input.purpose,
    declaredLength: input.file.size,
    body: input.file.stream(),
  });
  if (accepted.ok) return { ok: true, upload: accepted.value };
  const { reason } = accepted;
  const response =
    reason.code === 'RATE_LIMITED' ||
    (reason.code === 'PAYLOAD_TOO_LARGE' && input.purpose === 'post')
      ? refusalAnswer(c, reason)
      : apiError(c, 422, `Validation failed: ${input.field}: ${reason.message}`);
  return { ok: false, response };
}
