import type { z } from 'zod';
import {
  LIMITS,
  baseUrlForDomain,
  errorBodySchema,
  parseDomain,
  parseWith,
  signNodeRequest,
  utf8Decode,
  utf8Encode,
  type ErrorBody,
  type Result,
  err,
  ok,
} from '@swarm/contract';
import type { Clock } from '../clock.ts';
import type { NodeConfig } from '../config.ts';
import type { Logger } from '../logger.ts';
import type { NodeKeys } from '../node-keys.service.ts';
import { SOFTWARE_VERSION } from '../version.ts';
import type { PeerError } from './peer-errors.ts';
import { mediaTargetOf, type PeerBytesResult, type PeerStatusResult } from './peer-targets.ts';
import {
  createNodeHttpTransport,
  type PeerRequest,
  type PeerResponse,
  type PeerTransport,
} from './peer-transport.ts';
import { vetPeerDomain, type ResolveHost, type VetResult } from './ssrf-guard.ts';

/** Default response cap; callers expecting big answers (gossip pages) pass `maxBytes`. */
export const DEFAULT_PEER_RESPONSE_BYTES = 1024 * 1024;
/** Error bodies are read only this far: the status decides, a huge error page is noise. */
const ERROR_BODY_BYTES = 16 * 1024;
const REASON_CHARS = 200;

/** `ms` is the wall time of the whole exchange (DNS included), for sync logs and metrics. */
export type PeerResult<T> =
  { ok: true; value: T; status: number; ms: number } | { ok: false; reason: PeerError; ms: number };

export interface PeerCallOptions {
  /** Response cap in bytes (default 1 MiB). */
  maxBytes?: number;
  /** Whole-exchange timeout (default `LIMITS.peerTimeoutMs`, 5 s). */
  timeoutMs?: number;
}

export interface PeerPostOptions extends PeerCallOptions {
  /** Add the four X-Swarm-* headers (default true: every node-to-node POST is signed). */
  sign?: boolean;
  /** Extra request headers (the origin profile's `X-Swarm-Signature` on replies). */
  headers?: Record<string, string>;
  /** `DELETE` with a JSON body: only the origin profile's unsigned removal of a reply. */
  method?: 'POST' | 'DELETE';
}

export interface PeerClient {
  /** GET `pathWithQuery` (starting with `/`) on `domain`; the answer is parsed with `schema`. */
  getJson<S extends z.ZodType>(
    domain: string,
    pathWithQuery: string,
    schema: S,
    options?: PeerCallOptions,
  ): Promise<PeerResult<z.output<S>>>;
  /** POST `body` as JSON; the signature covers exactly the bytes sent. */
  postJson<S extends z.ZodType>(
    domain: string,
    path: string,
    body: unknown,
    schema: S,
    options?: PeerPostOptions,
  ): Promise<PeerResult<z.output<S>>>;
  /**
   * GET an absolute URL (media for the media proxy) with the same guard, timeout, no redirects
   * and size cap. The scheme must be the one this node uses for that host (`https`, plain `http`
   * only for loopback hosts in development mode). Throws on a URL that is not one.
   */
  getBytes(url: string, options?: PeerCallOptions & { accept?: string }): Promise<PeerBytesResult>;
  /**
   * POST `body` to an absolute URL under the same guard, scheme rule, timeout and no redirects;
   * the answer's body is not read (Web Push: a push service's URL an app gave). Answers the
   * status, whatever it is; throws on a URL that is not one this node may contact.
   */
  postBytes(
    url: string,
    body: Uint8Array,
    headers: Record<string, string>,
    options?: Pick<PeerCallOptions, 'timeoutMs'>,
  ): Promise<PeerStatusResult>;
}

export interface PeerClientDeps {
  config: Pick<NodeConfig, 'domain' | 'dev'>;
  keys: Pick<NodeKeys, 'privateKey'>;
  clock: Clock;
  logger: Logger;
  /** Default: node:http(s) to the vetted addresses. */
  transport?: PeerTransport;
  /** Default: the system resolver. The SSRF guard runs whatever the transport. */
  resolveHost?: ResolveHost;
  timeoutMs?: number;
  maxBytes?: number;
  /** The id of the request being served, sent to the peer as X-Request-Id (logged on both sides). */
  requestId?: () => string | undefined;
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
/** A failed request before the domain is added (once, at the end). */
type Failure = { ok: false; reason: DistributiveOmit<PeerError, 'domain'> };
/** What `interpret` decides. */
type Outcome<T> = { ok: true; value: T; status: number } | Failure;

/**
 * Outbound requests to peers (docs/protocol.md): SSRF-guarded, 5 s timeout, no redirects, capped
 * responses, answers validated with the contract's schemas. Whatever a peer does, the result is
 * a value; only programmer errors (invalid domain or path, unserialisable body) throw.
 */
export function createPeerClient(deps: PeerClientDeps): PeerClient {
  const transport = deps.transport ?? createNodeHttpTransport();
  // Every request, JSON or bytes, connects only to the addresses its domain passed the SSRF guard.
  const vet = (domain: string) =>
    vetPeerDomain(domain, { dev: deps.config.dev, resolveHost: deps.resolveHost });
  const defaultTimeoutMs = deps.timeoutMs ?? LIMITS.peerTimeoutMs;
  const defaultMaxBytes = deps.maxBytes ?? DEFAULT_PEER_RESPONSE_BYTES;

  /**
   * One request to `domain` under the client's guard: only to the addresses the SSRF guard
   * vetted, within `timeoutMs` for the whole exchange, and the connection dropped unless
   * `answer` read the body to its end (through `read`, capped). A throw on the way is a timeout
   * or the peer unreachable.
   */
  async function guarded<O>(
    domain: string,
    timeoutMs: number,
    request: Omit<PeerRequest, 'signal' | 'addresses'>,
    answer: (
      response: PeerResponse,
      read: (cap: number) => Promise<Uint8Array | null>,
    ) => Promise<O | Failure>,
  ): Promise<O | Failure> {
    const timeout = AbortSignal.timeout(timeoutMs);
    const stop = new AbortController(); // drops the connection when we stop reading early
    const signal = AbortSignal.any([timeout, stop.signal]);
    let drained = false;
    try {
      const vetted = await untilAborted(vet(domain), signal);
      if (!vetted.ok) return { ok: false, reason: refusedBy(vetted) };
      const response = await untilAborted(
        transport({ ...request, signal, addresses: vetted.addresses }),
        signal,
      );
      return await answer(response, async (cap) => {
        const bytes = await readCapped(response.body, cap, signal);
        drained = bytes !== null;
        return bytes;
      });
    } catch (error) {
      return timeout.aborted
        ? { ok: false, reason: { kind: 'timeout', timeoutMs } }
        : { ok: false, reason: { kind: 'unreachable', reason: networkReason(error) } };
    } finally {
      if (!drained) stop.abort();
    }
  }

  async function exchange<S extends z.ZodType>(call: {
    method: 'GET' | 'POST' | 'DELETE';
    domain: string;
    path: string;
    body: Uint8Array | undefined;
    schema: S;
    sign: boolean;
    options: PeerCallOptions;
    headers?: Record<string, string> | undefined;
  }): Promise<PeerResult<z.output<S>>> {
    const started = performance.now();
    const { domain, url } = targetOf(call.domain, call.path);
    const timeoutMs = call.options.timeoutMs ?? defaultTimeoutMs;
    const maxBytes = call.options.maxBytes ?? defaultMaxBytes;
    const headers: Record<string, string> = {
      accept: 'application/json',
      'user-agent': `swarm-node/${SOFTWARE_VERSION}`,
    };
    if (call.body) headers['content-type'] = 'application/json';
    const requestId = deps.requestId?.();
    if (requestId) headers['x-request-id'] = requestId;
    if (call.headers) Object.assign(headers, call.headers);
    if (call.sign) {
      Object.assign(
        headers,
        await signNodeRequest({
          privateKey: deps.keys.privateKey,
          method: call.method,
          path: url.pathname + url.search, // what goes on the wire, after URL normalisation
          sourceDomain: deps.config.domain,
          targetDomain: domain,
          body: call.body ?? '',
          now: deps.clock.now(),
        }),
      );
    }

    const outcome = await guarded(
      domain,
      timeoutMs,
      { url, method: call.method, headers, body: call.body, maxBytes },
      (response, read) => interpret(response, read, call.schema, maxBytes, deps.clock),
    );

    const ms = Math.round(performance.now() - started);
    const log = { peer: domain, method: call.method, path: url.pathname, ms };
    if (outcome.ok) {
      deps.logger.debug({ ...log, status: outcome.status }, 'peer request');
      return { ok: true, value: outcome.value, status: outcome.status, ms };
    }
    const error = { ...outcome.reason, domain } as PeerError;
    deps.logger.debug({ ...log, failure: error.kind, error }, 'peer request failed');
    return { ok: false, reason: error, ms };
  }

  async function getBytes(
    raw: string,
    options: PeerCallOptions & { accept?: string } = {},
  ): Promise<PeerBytesResult> {
    const started = performance.now();
    const target = mediaTargetOf(raw);
    if (!target.ok) throw new TypeError(`peer client: ${target.reason}: ${raw}`);
    const { domain, url } = target.value;
    const timeoutMs = options.timeoutMs ?? defaultTimeoutMs;
    const maxBytes = options.maxBytes ?? defaultMaxBytes;
    const outcome = await guarded<{
      ok: true;
      bytes: Uint8Array;
      contentType: string;
      status: number;
    }>(
      domain,
      timeoutMs,
      {
        url,
        method: 'GET',
        headers: {
          accept: options.accept ?? '*/*',
          'user-agent': `swarm-node/${SOFTWARE_VERSION}`,
        },
        body: undefined,
        maxBytes,
      },
      async ({ status, headers }, read) => {
        const declared = Number(headers.get('content-length') ?? Number.NaN);
        if (status >= 300 && status < 400) {
          return {
            ok: false,
            reason: { kind: 'redirect', status, location: headers.get('location') },
          };
        }
        if (status < 200 || status >= 300) {
          return {
            ok: false,
            reason: { kind: 'http', status, body: undefined, retryAfter: undefined },
          };
        }
        if (declared > maxBytes) return { ok: false, reason: { kind: 'too_large', maxBytes } };
        const bytes = await read(maxBytes);
        const contentType = (headers.get('content-type') ?? '')
          .split(';', 1)[0]!
          .trim()
          .toLowerCase();
        return bytes === null
          ? { ok: false, reason: { kind: 'too_large', maxBytes } }
          : { ok: true, bytes, contentType, status };
      },
    );
    const ms = Math.round(performance.now() - started);
    if (outcome.ok) return { ...outcome, ms };
    const error = { ...outcome.reason, domain } as PeerError;
    deps.logger.debug(
      { peer: domain, path: url.pathname, ms, failure: error.kind },
      'media fetch failed',
    );
    return { ok: false, reason: error, ms };
  }

  async function postBytes(
    raw: string,
    body: Uint8Array,
    headers: Record<string, string>,
    options: Pick<PeerCallOptions, 'timeoutMs'> = {},
  ): Promise<PeerStatusResult> {
    const started = performance.now();
    const target = mediaTargetOf(raw);
    if (!target.ok) throw new TypeError(`peer client: ${target.reason}: ${raw}`);
    const { domain, url } = target.value;
    const outcome = await guarded<{ ok: true; status: number }>(
      domain,
      options.timeoutMs ?? defaultTimeoutMs,
      {
        url,
        method: 'POST',
        headers: { 'user-agent': `swarm-node/${SOFTWARE_VERSION}`, ...headers },
        body,
        maxBytes: ERROR_BODY_BYTES,
      },
      // The answer's body says nothing we act on: drain a little so the connection can be reused.
      async ({ status }, read) => {
        await read(ERROR_BODY_BYTES);
        return { ok: true, status };
      },
    );
    const ms = Math.round(performance.now() - started);
    if (outcome.ok) return { ok: true, status: outcome.status, ms };
    return { ok: false, reason: { ...outcome.reason, domain } as PeerError, ms };
  }

  return {
    getBytes,
    postBytes,
    getJson: (domain, pathWithQuery, schema, options = {}) =>
      exchange({
        method: 'GET',
        domain,
        path: pathWithQuery,
        body: undefined,
        schema,
        sign: false,
        options,
      }),
    postJson: async (domain, path, body, schema, options = {}) => {
      const text = JSON.stringify(body) as string | undefined;
      if (text === undefined) throw new TypeError('postJson: the body is not JSON-serialisable');
      return exchange({
        method: options.method ?? 'POST',
        domain,
        path,
        body: utf8Encode(text),
        schema,
        sign: options.sign ?? true,
        options,
        headers: options.headers,
      });
    },
  };
}

/** Programmer errors throw here: callers validate domains (`parseDomain`) before calling. */
function targetOf(rawDomain: string, path: string): { domain: string; url: URL } {
  const domain = parseDomain(rawDomain);
  if (!domain.ok)
    throw new TypeError(`peer client: invalid domain "${rawDomain}": ${domain.reason}`);
  const base = new URL(baseUrlForDomain(domain.value));
  if (!path.startsWith('/')) throw new TypeError(`peer client: path must start with "/": ${path}`);
  const url = new URL(path, base);
  // `//other.host/x` is a valid relative URL that would leave the peer: refuse it.
  if (url.origin !== base.origin)
    throw new TypeError(`peer client: path leaves ${domain.value}: ${path}`);
  return { domain: domain.value, url };
}

async function interpret<S extends z.ZodType>(
  response: PeerResponse,
  read: (cap: number) => Promise<Uint8Array | null>,
  schema: S,
  maxBytes: number,
  clock: Clock,
): Promise<Outcome<z.output<S>>> {
  const { status, headers } = response;
  if (status >= 300 && status < 400) {
    return { ok: false, reason: { kind: 'redirect', status, location: headers.get('location') } };
  }
  if (status < 200 || status >= 300) {
    const bytes = await read(Math.min(ERROR_BODY_BYTES, maxBytes)).catch(() => null);
    const body = parseErrorBody(bytes);
    return {
      ok: false,
      reason: {
        kind: 'http',
        status,
        body,
        message: body ? undefined : peerErrorText(bytes),
        retryAfter: parseRetryAfter(headers.get('retry-after'), clock.now()),
      },
    };
  }
  const declared = Number(headers.get('content-length') ?? Number.NaN);
  if (declared > maxBytes) return { ok: false, reason: { kind: 'too_large', maxBytes } };
  const bytes = await read(maxBytes);
  if (bytes === null) return { ok: false, reason: { kind: 'too_large', maxBytes } };
  const json = parseJsonBytes(bytes);
  if (!json.ok)
    return { ok: false, reason: { kind: 'invalid_response', status, reason: json.reason } };
  const parsed = parseWith(schema, json.value);
  if (!parsed.ok) {
    const reason = `unexpected shape: ${parsed.reason}`.slice(0, REASON_CHARS);
    return { ok: false, reason: { kind: 'invalid_response', status, reason } };
  }
  return { ok: true, value: parsed.value, status };
}

function parseJsonBytes(bytes: Uint8Array): Result<unknown> {
  let text: string;
  try {
    text = utf8Decode(bytes).replace(/^\uFEFF/, '');
  } catch {
    return err('the body is not UTF-8');
  }
  if (text.trim() === '') return err('the body is empty');
  try {
    return ok(JSON.parse(text));
  } catch {
    return err(`the body is not JSON (starts with ${JSON.stringify(text.slice(0, 40))})`);
  }
}

function parseErrorBody(bytes: Uint8Array | null): ErrorBody | undefined {
  if (!bytes) return undefined;
  const json = parseJsonBytes(bytes);
  if (!json.ok) return undefined;
  const body = parseWith(errorBodySchema, json.value);
  return body.ok ? body.value : undefined;
}

/** The `error` text of a non-conforming error body (e.g. the origin's `{error, details}`). */
function peerErrorText(bytes: Uint8Array | null): string | undefined {
  if (!bytes) return undefined;
  const json = parseJsonBytes(bytes);
  if (!json.ok || typeof json.value !== 'object' || json.value === null) return undefined;
  const text = (json.value as { error?: unknown }).error;
  return typeof text === 'string' && text !== '' ? text.slice(0, REASON_CHARS) : undefined;
}

/** `Retry-After` as seconds: delta-seconds or an HTTP date (RFC 9110 §10.2.3). */
export function parseRetryAfter(value: string | null, now: Date): number | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  if (/^\d+$/.test(text)) return Number(text);
  if (!/GMT$/.test(text)) return undefined; // Date.parse accepts far too much otherwise
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now.getTime()) / 1000));
}

/**
 * Reads at most `maxBytes`; null as soon as the body goes past it (the rest is never read).
 * Every wait races the signal, so a peer that stalls mid-body still times out.
 */
async function readCapped(
  body: PeerResponse['body'],
  maxBytes: number,
  signal: AbortSignal,
): Promise<Uint8Array | null> {
  if (body === null) return new Uint8Array();
  if (body instanceof Uint8Array) return body.byteLength > maxBytes ? null : body;
  const iterator = body[Symbol.asyncIterator]();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const step = await untilAborted(iterator.next(), signal);
    if (step.done) break;
    total += step.value.byteLength;
    if (total > maxBytes) {
      void Promise.resolve(iterator.return?.()).catch(() => undefined);
      return null;
    }
    chunks.push(step.value);
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/** The peer error of a domain the SSRF guard refused. */
function refusedBy(
  vetted: Extract<VetResult, { ok: false }>,
): DistributiveOmit<PeerError, 'domain'> {
  return vetted.kind === 'blocked_address'
    ? { kind: 'blocked_address', address: vetted.address, reason: vetted.reason }
    : { kind: 'unreachable', reason: vetted.reason };
}

function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    promise.catch(() => undefined);
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

function networkReason(error: unknown): string {
  const e = error as { code?: unknown; message?: unknown; cause?: { code?: unknown } } | undefined;
  const code = e?.code ?? e?.cause?.code;
  if (typeof code === 'string') return code;
  return typeof e?.message === 'string' ? e.message.slice(0, REASON_CHARS) : 'network error';
}
