import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';

/**
 * How the peer client puts bytes on the wire. The default speaks node:http(s) to the addresses
 * the SSRF guard vetted; the test harness routes domains to in-process apps instead
 * (`transportFromFetch`). Limits (cap, redirects, timeout) are enforced by the client, so every
 * transport behaves alike.
 */
export interface PeerRequest {
  url: URL;
  method: 'GET' | 'POST' | 'DELETE';
  headers: Record<string, string>;
  body?: Uint8Array;
  /** Aborted on timeout or when the client stops reading early: drop the connection. */
  signal: AbortSignal;
  /** The response cap; the client enforces it, a transport may use it to give up early. */
  maxBytes: number;
  /** Addresses the SSRF guard vetted for `url.hostname`: connect to these and nothing else. */
  addresses: readonly string[];
}

export interface PeerResponse {
  status: number;
  headers: { get(name: string): string | null };
  /** Streamed so the client can stop reading at the cap. */
  body: Uint8Array | AsyncIterable<Uint8Array> | null;
}

export type PeerTransport = (request: PeerRequest) => Promise<PeerResponse>;

function familyOf(option: number | 'IPv4' | 'IPv6' | undefined): number {
  return option === 'IPv4' ? 4 : option === 'IPv6' ? 6 : (option ?? 0);
}

/** A `lookup` that answers with the vetted addresses, so DNS cannot change between check and connect. */
function pinnedLookup(addresses: readonly string[]): LookupFunction {
  return (hostname, options, callback) => {
    const family = familyOf(options.family);
    const entries = addresses
      .map((address) => ({ address, family: isIP(address) }))
      .filter((entry) => family === 0 || entry.family === family);
    const first = entries[0];
    if (!first) {
      const error: NodeJS.ErrnoException = new Error(
        `no vetted IPv${family} address for ${hostname}`,
      );
      error.code = 'ENOTFOUND';
      callback(error, '', 0);
    } else if (options.all) {
      callback(null, entries);
    } else {
      callback(null, first.address, first.family);
    }
  };
}

export interface NodeHttpTransportOptions {
  /** Extra trusted CA certificates (PEM), e.g. a test or private-network CA. */
  ca?: string | string[];
}

/**
 * node:http(s) transport. Redirects are never followed (node:http does not), the Host header and
 * TLS server name stay the peer's domain while the socket goes to a vetted address. Each
 * transport has its own keep-alive agents, so nodes in one process never share sockets.
 *
 * A peer may close a kept-alive connection just as we send on it (an origin node closes idle
 * ones after 5 s): a GET that dies that way, reset before any answer, is sent once more on a new
 * connection (docs/protocol.md "Peer requests"). A POST never is: the peer may have acted on it.
 */
export function createNodeHttpTransport(options: NodeHttpTransportOptions = {}): PeerTransport {
  const agents = {
    'http:': new http.Agent({ keepAlive: true }),
    'https:': new https.Agent({ keepAlive: true, ...(options.ca ? { ca: options.ca } : {}) }),
  };
  return async (req) => {
    const protocol = req.url.protocol;
    if (protocol !== 'http:' && protocol !== 'https:') {
      throw new TypeError(`peer transport: unsupported protocol ${protocol}`);
    }
    try {
      return await send(req, agents[protocol]);
    } catch (error) {
      if (req.method !== 'GET' || req.signal.aborted || !(error instanceof StaleSocketError)) {
        throw error instanceof StaleSocketError ? error.original : error;
      }
      // A one-off agent: a new connection, not another idle one from the pool.
      const fresh =
        protocol === 'https:'
          ? new https.Agent(options.ca ? { ca: options.ca } : {})
          : new http.Agent();
      return await send(req, fresh);
    }
  };
}

/** A request that failed on a reused connection before any answer: the peer had closed it. */
class StaleSocketError extends Error {
  constructor(readonly original: Error) {
    super(original.message);
  }
}

const STALE_CODES = new Set(['ECONNRESET', 'EPIPE']);

function send(req: PeerRequest, agent: http.Agent): Promise<PeerResponse> {
  const protocol = req.url.protocol;
  return new Promise<PeerResponse>((resolve, reject) => {
    const outgoing = (protocol === 'https:' ? https : http).request({
      hostname: req.url.hostname.replace(/^\[(.*)\]$/, '$1'),
      port: req.url.port || undefined,
      path: req.url.pathname + req.url.search,
      method: req.method,
      headers: {
        host: req.url.host,
        ...req.headers,
        ...(req.body ? { 'content-length': String(req.body.byteLength) } : {}),
      },
      agent,
      lookup: pinnedLookup(req.addresses),
    });
    // Explicit rather than the `signal` option: the socket must also die if the body stalls.
    const onAbort = () => outgoing.destroy(req.signal.reason as Error);
    if (req.signal.aborted) onAbort();
    else req.signal.addEventListener('abort', onAbort, { once: true });
    outgoing.once('close', () => req.signal.removeEventListener('abort', onAbort));
    outgoing.on('error', (error: NodeJS.ErrnoException) => {
      const stale = outgoing.reusedSocket && STALE_CODES.has(error.code ?? '');
      reject(stale ? new StaleSocketError(error) : error);
    });
    outgoing.on('response', (res) => {
      resolve({
        status: res.statusCode ?? 0,
        headers: {
          get: (name) => {
            const value = res.headers[name.toLowerCase()];
            return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
          },
        },
        body: res as AsyncIterable<Uint8Array>,
      });
    });
    outgoing.end(req.body);
  });
}

async function* chunksOf(stream: ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array> {
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    reader.cancel().catch(() => undefined);
  }
}

/**
 * Adapts a fetch-style handler, e.g. routing each domain to an in-process Hono app's
 * `app.request`/`app.fetch`, so tests run several nodes without sockets.
 */
export function transportFromFetch(
  handler: (request: Request) => Promise<Response>,
): PeerTransport {
  return async (req) => {
    const response = await handler(
      new Request(req.url, {
        method: req.method,
        headers: req.headers,
        body: req.body?.slice(),
        signal: req.signal,
        redirect: 'manual',
      }),
    );
    return {
      status: response.status,
      headers: response.headers,
      body: response.body ? chunksOf(response.body) : null,
    };
  };
}
