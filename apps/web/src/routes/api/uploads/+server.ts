import { ERROR_STATUS, errorBody } from '@swarm/contract';
import { declaredLengthOf } from '@swarm/domain';
import { errorJson } from '$lib/server/api-errors';
import type { RequestHandler } from './$types';

// Photo uploads (issue #14 "Photos"; docs/protocol.md "Uploads and media URLs"): the image's
// bytes are the request body (any declared type, or none: the node reads the type from the bytes), the
// purpose in the query (`post`, `avatar`, `header`). Signed in, from this origin (the hook's
// origin check), a budget per person. A body declared larger than UPLOAD_MAX_BYTES is refused
// before any of it is read; one that grows past it while being read is cut off there.
// The answer of a post upload is the upload's id and URLs, which the composer then puts into
// the post; an avatar or header is set on the profile at once.

const UPLOAD_LIMIT = 'uploads-user';
/** Per person: a burst of 60 uploads, then 60 an hour. */
const UPLOADS_PER_USER = { points: 60, windowMs: 60 * 60_000 };

export const POST: RequestHandler = async ({ request, url, locals }) => {
  const { node, session } = locals;
  // A refusal is answered at once, whatever is still coming. The connection is not closed on
  // it: a client still sending would get a reset, which discards the answer it has not read
  // yet; Node reads and drops the rest of the body instead (bounded by its request timeout).
  if (!session) return errorJson(401, 'UNAUTHORIZED', 'Sign in first.');
  const taken = await node.limits.take(UPLOAD_LIMIT, session.user.id, UPLOADS_PER_USER);
  if (!taken.ok) {
    const refused = errorJson(
      429,
      'RATE_LIMITED',
      `Too many uploads; retry in ${taken.retryAfterSec} s.`,
    );
    refused.headers.set('retry-after', String(taken.retryAfterSec));
    return refused;
  }
  const result = await node.uploads.accept({
    ownerId: session.user.id,
    purpose: url.searchParams.get('purpose'),
    declaredLength: declaredLengthOf(request.headers.get('content-length')),
    body: request.body,
  });
  if (!result.ok) {
    const { code, message, details } = result.reason;
    const headers = new Headers({
      'content-type': 'application/json',
      'cache-control': 'no-store',
    });
    const retryAfter = (details as { retryAfterSec?: number } | undefined)?.retryAfterSec;
    if (retryAfter !== undefined) headers.set('retry-after', String(retryAfter));
    return new Response(JSON.stringify(errorBody(code, message, details)), {
      status: ERROR_STATUS[code],
      headers,
    });
  }
  return new Response(JSON.stringify(result.value), {
    status: 201,
    headers: { 'content-type': 'application/json', 'cache-control': 'no-store' },
  });
};
