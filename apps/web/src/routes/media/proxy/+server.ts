import { MEDIA_PROXY } from '@swarm/domain';
import { MEDIA_HARDENED, mediaRefusal as refusal } from '$lib/server/media-headers';
import type { RequestHandler } from './$types';

// The media proxy (packages/domain/src/media): images pages show, served from this origin.
// Per client IP a token bucket (burst 300, then 300 a minute; a page shows a few dozen images)
// in the node's shared limits (one budget across web replicas, docs/deployment.md "Replicas");
// the node's outbound fetch budget is the media service's.
const MEDIA_LIMIT = 'media-ip';
const MEDIA_PER_IP = { points: 300, windowMs: 60_000 };

export const GET: RequestHandler = async ({ url, locals }) => {
  const { node } = locals;
  const taken = await node.limits.take(MEDIA_LIMIT, locals.clientAddress, MEDIA_PER_IP);
  if (!taken.ok) {
    return refusal(
      429,
      'RATE_LIMITED',
      `Too many images requested; retry in ${taken.retryAfterSec} s.`,
      { 'retry-after': String(taken.retryAfterSec) },
    );
  }
  const outcome = await node.media.load({
    url: url.searchParams.get('url'),
    sig: url.searchParams.get('sig'),
  });
  if (!outcome.ok) return refusal(outcome.status, outcome.code, outcome.message);
  return new Response(outcome.bytes as Uint8Array<ArrayBuffer>, {
    status: 200,
    headers: {
      ...MEDIA_HARDENED,
      'cross-origin-resource-policy': 'same-origin',
      'content-type': outcome.contentType,
      'content-length': String(outcome.bytes.byteLength),
      'cache-control': `public, max-age=${MEDIA_PROXY.browserMaxAgeSec}`,
      'content-disposition': 'inline',
    },
  });
};
