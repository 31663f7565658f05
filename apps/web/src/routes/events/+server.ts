import type { RequestHandler } from './$types';

// Live updates of the signed-in person (issue #14; packages/domain/src/live): a server-sent event
// stream of `state` snapshots, authenticated by the session cookie, ended when the session ends.
// The headers keep proxies from buffering or transforming it (deploy/Caddyfile flushes at once
// and does not compress this path); comment lines every 25 s keep idle connections open.

const TEXT = { 'content-type': 'text/plain; charset=utf-8' };

const STREAM_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache, no-store, no-transform',
  // nginx and compatible proxies: pass each event on at once.
  'x-accel-buffering': 'no',
};

export const GET: RequestHandler = ({ locals, request }) => {
  const session = locals.session;
  if (!session) return new Response('Sign in first.', { status: 401, headers: TEXT });
  // HEAD: the headers only, no stream held for a body nobody reads.
  if (request.method === 'HEAD') return new Response(null, { headers: STREAM_HEADERS });
  const opened = locals.node.live.open({ userId: session.user.id, sessionId: session.sessionId });
  if (!opened.ok) {
    return new Response(opened.message, {
      status: 429,
      headers: { ...TEXT, 'retry-after': opened.reason === 'user' ? '30' : '10' },
    });
  }
  const { stream } = opened;
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      stream.attach({
        write: (text) => controller.enqueue(encoder.encode(text)),
        end: () => controller.close(),
      });
    },
    cancel() {
      stream.close();
    },
  });
  return new Response(body, { headers: STREAM_HEADERS });
};
