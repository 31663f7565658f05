import { readdirSync, readFileSync } from 'node:fs';
import { request as httpRequest, Agent, type IncomingHttpHeaders } from 'node:http';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { errorBodySchema } from '@swarm/contract';

// The front-door level (docs/testing.md): the routes of the web app and the gateway, derived from
// the sources and the router (so a new route cannot be forgotten), called over a socket on real
// processes, and the invariants every answer must keep. The tests are
// test/front-door-*.process.test.ts.

export const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
export const webSrcDir = join(repoRoot, 'apps', 'web', 'src');
export const webRoutesDir = join(webSrcDir, 'routes');

// ---------------------------------------------------------------------------------------------
// Requests over a socket, byte-exact (no URL normalisation on the way).

export interface SweepRequest {
  method: string;
  /** Path and query exactly as sent (percent-encoded by the caller). */
  path: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
}

export interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

// Kept-alive connections, as browsers use them: a server that answers before reading a body
// drains it and keeps the connection (closing it with unread bytes would reset the answer).
const agent = new Agent({ keepAlive: true, maxSockets: 8 });

/**
 * Sends `req` to `base` (`http://127.0.0.1:<port>`) as is; `host` is the Host header. A reset
 * on a reused connection (the server closed it while idle, as it may) is retried once, the way
 * Node's documentation says to.
 */
export async function send(base: string, host: string, req: SweepRequest): Promise<Answer> {
  try {
    return await sendOnce(base, host, req);
  } catch (error) {
    if ((error as { reusedSocket?: boolean }).reusedSocket) return sendOnce(base, host, req);
    throw error;
  }
}

function sendOnce(base: string, host: string, req: SweepRequest): Promise<Answer> {
  const url = new URL(base);
  const body = req.body === undefined ? undefined : Buffer.from(req.body);
  return new Promise((resolve, reject) => {
    const r = httpRequest(
      {
        agent,
        host: url.hostname,
        port: url.port,
        method: req.method,
        path: req.path,
        headers: {
          host,
          ...(body ? { 'content-length': String(body.length) } : {}),
          ...req.headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        const answer = () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text: Buffer.concat(chunks).toString('utf8'),
          });
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', answer);
        res.on('error', reject);
        // A live event stream (`/events`) never ends by itself: its first event is the answer.
        if (/^text\/event-stream\b/.test(String(res.headers['content-type']))) {
          const done = () => {
            clearTimeout(timer);
            answer();
            res.destroy();
          };
          const timer = setTimeout(done, 5_000);
          res.on('data', () => {
            if (Buffer.concat(chunks).toString('utf8').includes('event: ')) done();
          });
        }
      },
    );
    r.setTimeout(30_000, () =>
      r.destroy(new Error(`${req.method} ${req.path}: no answer in 30 s`)),
    );
    r.on('error', (error: NodeJS.ErrnoException) => {
      const wrapped = new Error(`${req.method} ${req.path}: ${error.message}`, { cause: error });
      const retry = r.reusedSocket && error.code === 'ECONNRESET';
      reject(Object.assign(wrapped, { reusedSocket: retry }));
    });
    r.end(body);
  });
}

/** Runs `tasks` with at most `limit` in flight; resolves with their results in order. */
export async function inPool<T>(limit: number, tasks: (() => Promise<T>)[]): Promise<T[]> {
  const results: T[] = new Array(tasks.length);
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const i = next++;
      results[i] = await tasks[i]!();
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, worker));
  return results;
}

// ---------------------------------------------------------------------------------------------
// The invariants.

/** JSON API paths: `{ error, code }` on every failure. */
export function isApiPath(path: string): boolean {
  const pathname = path.split('?', 1)[0]!;
  return (
    pathname === '/api' || pathname.startsWith('/api/') || pathname.startsWith('/.well-known/')
  );
}

export function isTrpcPath(path: string): boolean {
  const pathname = path.split('?', 1)[0]!;
  return pathname === '/trpc' || pathname.startsWith('/trpc/');
}

/** A stack frame as V8 prints it (`at fn (/path/file.ts:1:2)`, `at file:///…:1:2`). */
const STACK_FRAME = /\bat (?:[^\s()]+ \()?(?:file:\/\/|node:|\/)[^\s()]*:\d+:\d+\)?/;

/** tRPC's error answer: `{ error: { message, code, data: { code, httpStatus } } }` (or a batch). */
function isTrpcErrorBody(value: unknown): boolean {
  const one = (v: unknown) => {
    if (typeof v !== 'object' || v === null || !('error' in v)) return false;
    const error = (v as { error: unknown }).error;
    if (typeof error !== 'object' || error === null) return false;
    const e = error as { message?: unknown; data?: { code?: unknown } };
    return typeof e.message === 'string' && typeof e.data?.code === 'string';
  };
  return Array.isArray(value) ? value.some(one) : one(value);
}

function hasKey(value: unknown, key: string): boolean {
  if (Array.isArray(value)) return value.some((v) => hasKey(v, key));
  if (typeof value === 'object' && value !== null) {
    return Object.entries(value).some(([k, v]) => k === key || hasKey(v, key));
  }
  return false;
}

/** Peer failures a user-facing read may answer (docs/protocol.md, Errors). */
const PEER_FAILURES = new Set([
  'PEER_UNAVAILABLE',
  'PEER_TIMEOUT',
  'BAD_GATEWAY',
  'GATEWAY_TIMEOUT',
]);

/**
 * What is wrong with `answer` to `req`, as sentences (empty: nothing). The rules: no 500 (and
 * a 502/504 only as a peer failure with its code, or a page); JSON error bodies on every failure
 * under `/api/*` (`{ error, code }`) and `/trpc` (tRPC's error shape or ours); no stack trace,
 * `stack` member or path of the installation in any body.
 */
export function problemsWith(req: SweepRequest, answer: Answer): string[] {
  const problems: string[] = [];
  // A HEAD answer has the headers of the GET and no body.
  if (req.method === 'HEAD') {
    return answer.status >= 500 && answer.status !== 502 && answer.status !== 504
      ? [`answered ${answer.status}`]
      : [];
  }
  const { status, text } = answer;
  const type = String(answer.headers['content-type'] ?? '');
  // Judged by the path the server sees: `/trpc/..` is `/`, a page, once the URL is parsed.
  const seen = new URL(`http://node.invalid${req.path}`).pathname;
  const api = isApiPath(seen);
  const trpc = isTrpcPath(seen);
  let json: unknown;
  let parsed = false;
  if (/^application\/json\b/i.test(type)) {
    try {
      json = JSON.parse(text);
      parsed = true;
    } catch {
      problems.push('content-type is JSON but the body is not');
    }
  }
  if (status >= 500) {
    const code = parsed ? peerCode(json) : undefined;
    const peerFailure =
      (status === 502 || status === 504) && (code ? PEER_FAILURES.has(code) : !api && !trpc);
    if (!peerFailure) problems.push(`answered ${status}`);
  }
  if (status >= 400 && (api || trpc)) {
    if (!parsed) {
      problems.push(`${status} under ${api ? '/api' : '/trpc'} is not JSON (${type || 'no type'})`);
    } else if (api && !errorBodySchema.safeParse(json).success) {
      problems.push(`${status} body is not { error, code }`);
    } else if (trpc && !errorBodySchema.safeParse(json).success && !isTrpcErrorBody(json)) {
      problems.push(`${status} body is neither a tRPC error nor { error, code }`);
    }
  }
  if (STACK_FRAME.test(text)) problems.push('the body holds a stack trace');
  if (parsed && hasKey(json, 'stack')) problems.push('the body holds a "stack" member');
  if (text.includes(repoRoot)) problems.push('the body names a path of the installation');
  return problems;
}

function peerCode(json: unknown): string | undefined {
  if (typeof json !== 'object' || json === null) return undefined;
  const body = json as { code?: unknown; error?: { data?: { code?: unknown } } };
  if (typeof body.code === 'string') return body.code;
  const trpcCode = body.error?.data?.code;
  return typeof trpcCode === 'string' ? trpcCode : undefined;
}

/** One line for a failure report: the request, the status and the start of the body. */
export function describe(req: SweepRequest, answer: Answer, problems: string[]): string {
  const who = req.headers?.cookie ? ' (signed in)' : '';
  return `${req.method} ${req.path}${who} → ${answer.status}: ${problems.join('; ')} | ${answer.text.slice(0, 300).replace(/\s+/g, ' ')}`;
}

// ---------------------------------------------------------------------------------------------
// The web app's route tree, from apps/web/src/routes.

export interface WebRoute {
  /** The route id as SvelteKit names it, e.g. `/@[address]`, `/admin/nodes/[domain]`. */
  id: string;
  /** Path segments; parameters as `{ param, rest }`. */
  segments: (string | { param: string; rest: boolean; optional: boolean })[];
  /** Has a page (`+page.svelte` / `+page.server.ts` / `+page.ts`). */
  page: boolean;
  /** Methods a `+server.ts` exports (`fallback` included). */
  endpoint: string[];
  /** Form actions of `+page.server.ts` (`default` for the default action). */
  actions: string[];
}

const ENDPOINT_EXPORT =
  /export\s+(?:const|let|async\s+function|function)\s+(GET|POST|PUT|PATCH|DELETE|OPTIONS|HEAD|fallback)\b/g;

function actionNames(source: string): string[] {
  const start = source.search(/export\s+const\s+actions\b/);
  if (start < 0) return [];
  const open = source.indexOf('{', source.indexOf('=', start));
  // The object literal: up to its matching brace.
  let depth = 0;
  let end = open;
  for (; end < source.length; end++) {
    if (source[end] === '{') depth++;
    else if (source[end] === '}' && --depth === 0) break;
  }
  const body = source.slice(open + 1, end);
  const names: string[] = [];
  depth = 0;
  // Top-level keys only: `name:`, `name(`, `async name(`.
  for (const line of body.split('\n')) {
    if (depth === 0) {
      const m = /^\s*(?:async\s+)?([A-Za-z_$][\w$]*)\s*[:(]/.exec(line);
      if (m) names.push(m[1]!);
    }
    for (const ch of line) {
      if (ch === '{' || ch === '(' || ch === '[') depth++;
      else if (ch === '}' || ch === ')' || ch === ']') depth--;
    }
  }
  return names;
}

/** Every route of the web app, read from its source tree. */
export function webRouteTree(routesDir = webRoutesDir): WebRoute[] {
  const routes: WebRoute[] = [];
  const walk = (dir: string) => {
    const entries = readdirSync(dir, { withFileTypes: true });
    const files = new Set(entries.filter((e) => e.isFile()).map((e) => e.name));
    const rel = relative(routesDir, dir);
    const parts = rel === '' ? [] : rel.split(sep);
    const segments: WebRoute['segments'] = parts
      .filter((p) => !/^\(.*\)$/.test(p)) // (groups) are not in the URL
      .map((p) => {
        const m = /^\[(\[)?(\.\.\.)?([A-Za-z_]\w*)(?:=\w+)?\]?\]$/.exec(p);
        if (m && p.startsWith('[')) return { param: m[3]!, rest: !!m[2], optional: !!m[1] };
        return p;
      });
    const page = ['+page.svelte', '+page.server.ts', '+page.ts'].some((f) => files.has(f));
    const endpoint = files.has('+server.ts')
      ? [...readFileSync(join(dir, '+server.ts'), 'utf8').matchAll(ENDPOINT_EXPORT)].map(
          (m) => m[1]!,
        )
      : [];
    const actions = files.has('+page.server.ts')
      ? actionNames(readFileSync(join(dir, '+page.server.ts'), 'utf8'))
      : [];
    if (page || endpoint.length) {
      routes.push({ id: '/' + parts.join('/'), segments, page, endpoint, actions });
    }
    for (const e of entries) if (e.isDirectory()) walk(join(dir, e.name));
  };
  walk(routesDir);
  return routes;
}

/** The route's concrete paths for every combination of the given parameter values. */
export function fillRoute(route: WebRoute, values: (param: string) => string[]): string[] {
  let paths = [''];
  for (const segment of route.segments) {
    if (typeof segment === 'string') {
      paths = paths.map((p) => `${p}/${segment}`);
    } else {
      const options = values(segment.param);
      paths = paths.flatMap((p) => options.map((v) => (v === '' ? p : `${p}/${v}`)));
    }
  }
  return [...new Set(paths.map((p) => p || '/'))];
}

/**
 * Form field and query parameter names the web app reads (`form.get('x')`, `field(form, 'x')`,
 * `url.searchParams.get('x')`…), so garbage reaches the code that reads it.
 */
export function webFieldNames(srcDir = webSrcDir): string[] {
  const names = new Set<string>();
  const pattern = /\b(?:field|text|get|getAll)\(\s*(?:[\w.]+\s*,\s*)?'([A-Za-z_]\w*)'/g;
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, e.name);
      if (e.isDirectory()) walk(path);
      else if (/\.(ts|svelte)$/.test(e.name)) {
        for (const m of readFileSync(path, 'utf8').matchAll(pattern)) names.add(m[1]!);
      }
    }
  };
  walk(srcDir);
  // Cookies and headers read the same way are not form fields, but harmless as such.
  return [...names].sort();
}

// ---------------------------------------------------------------------------------------------
// The gateway's routes, from its router.

export interface GatewayRoute {
  method: string;
  /** Hono's path, parameters as `:name`. */
  path: string;
}

/** Every concrete (method, path) the gateway's Hono router holds (middleware excluded). */
export function gatewayRoutes(app: { routes: { method: string; path: string }[] }): GatewayRoute[] {
  const seen = new Map<string, GatewayRoute>();
  for (const r of app.routes) {
    if (r.method === 'ALL' || r.path.includes('*')) continue;
    seen.set(`${r.method} ${r.path}`, { method: r.method, path: r.path });
  }
  return [...seen.values()];
}

/** `:name` (and OpenAPI's `{name}`) replaced by each of the values. */
export function fillGatewayPath(path: string, values: (param: string) => string[]): string[] {
  let paths = [''];
  for (const segment of path.split('/').slice(1)) {
    const m = /^(?::([A-Za-z_]\w*)|\{([A-Za-z_]\w*)\})$/.exec(segment);
    if (!m) {
      paths = paths.map((p) => `${p}/${segment}`);
    } else {
      const options = values(m[1] ?? m[2]!);
      paths = paths.flatMap((p) => options.map((v) => `${p}/${v}`));
    }
  }
  return [...new Set(paths)];
}

// ---------------------------------------------------------------------------------------------
// Values.

/** Percent-encodes every byte outside the unreserved set: any byte sequence as a path segment. */
export function encodeBytes(bytes: Uint8Array): string {
  let out = '';
  for (const b of bytes) {
    const ch = String.fromCharCode(b);
    out += /[A-Za-z0-9\-._~]/.test(ch) ? ch : `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** Values no route should choke on, already encoded for a path segment or a query value. */
export const IMPLAUSIBLE = [
  '%00',
  'a%00b',
  '%FF',
  '%ED%A0%80', // a UTF-16 surrogate written as UTF-8
  '%C0%80', // an overlong NUL
  '%E0%A4%A',
  '%',
  '%2F',
  '%2E%2E',
  '..',
  '.',
  '%20',
  '%0A%0D',
  '-1',
  '0',
  '1e309',
  'NaN',
  'null',
  '%3Cscript%3Ealert(1)%3C%2Fscript%3E',
  '%27%3B%20DROP%20TABLE%20users%3B--',
  '%E5%90%8D%E5%89%8D', // 名前
  '%F0%9F%90%9D', // 🐝
  '@',
  '@@',
  'a@b@c',
  'x@',
  '@x',
  'x@localhost:1',
  'x@127.0.0.1',
  'x@%5B%3A%3A1%5D', // x@[::1]
  'x@169.254.169.254',
  'x@example.invalid',
  'swarm:example.invalid:1',
  'swarm::',
  'a'.repeat(300),
  'b'.repeat(5000),
];
