import { Hono, type Context } from 'hono';
import type { ClientApiEnv } from '../deps.ts';
import { apiError } from '../errors.ts';
import type { StreamingAuth } from './auth.ts';
import type { StreamingHub } from './hub.ts';
import { parseSubscription, streamFromPath } from './streams.ts';

/**
 * The event-stream form of streaming (`GET /api/v1/streaming/user`, `/public/local`,
 * `/hashtag?tag=…`, or `/api/v1/streaming?stream=…`): one stream per request, each event an
 * `event:` / `data:` block as Mastodon writes them, a comment line as heartbeat. And
 * `/api/v1/streaming/health`, which answers `OK` while the process serves.
 */

/** Bytes queued for a slow reader past which its stream ends. */
export const MAX_QUEUED_BYTES = 1024 * 1024;

export function streamingRoutes(deps: { hub: StreamingHub; auth: StreamingAuth }) {
  const { hub, auth } = deps;
  const app = new Hono<ClientApiEnv>();

  app.get('/api/v1/streaming/health', (c) => c.text('OK', 200, { 'cache-control': 'no-store' }));

  app.get('/api/v1/streaming/*', handle);
  app.get('/api/v1/streaming', handle);

  async function handle(c: Context<ClientApiEnv>) {
    const caller = await auth.caller({
      authorization: c.req.header('authorization'),
      query: c.req.query('access_token'),
    });
    if (!caller.ok) {
      return apiError(c, caller.status, caller.error, {
        headers: {
          'www-authenticate':
            'Bearer error="invalid_token", error_description="The access token is invalid"',
        },
      });
    }
    const name = streamFromPath(c.req.path) ?? c.req.query('stream');
    const parsed = parseSubscription(
      name,
      { tag: c.req.query('tag'), list: c.req.query('list') },
      caller.grant,
    );
    if (!parsed.ok) return apiError(c, parsed.status, parsed.error);
    const allowed = await auth.mayRead({ grant: caller.grant }, parsed.subscription);
    if (!allowed.ok) return apiError(c, allowed.status, allowed.error);
    const opened = hub.open({ grant: caller.grant, ip: c.env.clientIp, token: caller.token });
    if (!opened.ok) return apiError(c, opened.status, opened.error);
    const { connection } = opened;
    hub.subscribe(connection, parsed.subscription);

    const encoder = new TextEncoder();
    const body = new ReadableStream<Uint8Array>(
      {
        start(controller) {
          let ended = false;
          const end = () => {
            if (ended) return;
            ended = true;
            try {
              controller.close();
            } catch {
              // already closed by the reader
            }
          };
          const write = (text: string) => {
            if (ended) return true;
            // The reader is this far behind: it is dropped rather than buffered for.
            if ((controller.desiredSize ?? 0) < 0) return false;
            controller.enqueue(encoder.encode(text));
            return true;
          };
          write(':)\n\n');
          hub.attach(connection, {
            send: (text) => write(text.sse),
            heartbeat: () => write(':thump\n\n'),
            close: end,
          });
        },
        cancel() {
          hub.close(connection);
        },
      },
      new ByteLengthQueuingStrategy({ highWaterMark: MAX_QUEUED_BYTES }),
    );
    return new Response(body, {
      status: 200,
      headers: {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-store',
        // Proxies must pass each event on at once.
        'x-accel-buffering': 'no',
      },
    });
  }

  return app;
}
