import { UPLOADS } from '@swarm/domain';
import { MEDIA_HARDENED, mediaRefusal } from '$lib/server/media-headers';
import type { RequestHandler } from './$types';

// Files of photos uploaded here (`<id>.webp`, `<id>-thumb.webp`): what posts and profiles link
// to, for this node's pages and for peers (absolute URLs on the wire). Always our own type
// (every stored file was written by the node as WebP), never sniffed, a sandboxing policy in
// case one is opened as a document, and cached for a year: a file never changes (a new upload
// is a new name). Other origins may embed them (peers' pages, origin-profile nodes).

export const GET: RequestHandler = async ({ params, locals }) => {
  const file = await locals.node.uploads.file(params.file);
  if (!file) return mediaRefusal(404, 'NOT_FOUND', 'There is no such file.');
  return new Response(file.bytes as Uint8Array<ArrayBuffer>, {
    status: 200,
    headers: {
      ...MEDIA_HARDENED,
      'content-type': file.contentType,
      'content-length': String(file.bytes.byteLength),
      'cache-control': `public, max-age=${UPLOADS.maxAgeSec}, immutable`,
      'content-disposition': 'inline',
      'cross-origin-resource-policy': 'cross-origin',
    },
  });
};
