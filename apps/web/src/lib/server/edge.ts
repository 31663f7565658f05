import { error, isHttpError, isRedirect, type Handle, type RequestEvent } from '@sveltejs/kit';
import { errorBodySchema, errorCodeForStatus, NUL_REFUSED, urlHasNul } from '@swarm/contract';
import { errorJson } from './api-errors';
import { withSecurityHeaders } from './security-headers';

// The web app's edge for what no route decides (docs/protocol.md, Errors; issues 12 and 17):
// - a path or query holding U+0000 (`%00`) is refused before any route reads it: the database
//   cannot store it, so it would otherwise surface as a 500 deep inside;
// - a form post whose body cannot be read as a form (a broken multipart body, or text/plain,
//   which SvelteKit lets through to actions but cannot parse) is a 400 or 415 here, not a
//   TypeError inside every action's `request.formData()`;
// - under `/api/*` and `/trpc` every failure is JSON: SvelteKit's own answers (404 for an unknown
//   path, 405 for a method a `+server.ts` does not export, its error page for a handler that
//   threw) are HTML, plain text or `{ message }`, and become `{ error, code }` with their status.

/** The JSON API paths of the web app: the spec's `/api/users/*` (and any `/api/…`) and tRPC. */
export function isJsonApiPath(pathname: string): boolean {
  return (
    pathname === '/api' ||
    pathname.startsWith('/api/') ||
    pathname === '/trpc' ||
    pathname.startsWith('/trpc/')
  );
}

/** What a bare status (a library's answer without our body) is told; codes from the contract. */
const MESSAGE_BY_STATUS: Record<number, string> = {
  400: 'The request is not valid.',
  401: 'Sign in first.',
  403: 'This request is not allowed.',
  404: 'No such endpoint.',
  405: 'This endpoint does not answer this method.',
  413: 'The request body is too large.',
  415: 'This content type is not accepted here.',
  429: 'Too many requests; try again later.',
};

const INTERNAL = {
  code: 'INTERNAL',
  message: 'Something went wrong on this node; it has been logged.',
} as const;

/** The contract's code of a bare status; every 5xx we did not answer ourselves is INTERNAL. */
const codeOfStatus = (status: number) =>
  status >= 500 ? INTERNAL.code : errorCodeForStatus(status);

function isJson(response: Response): boolean {
  return /^application\/json\b/i.test(response.headers.get('content-type') ?? '');
}

/** Is this failure already an error body of ours (or, under /trpc, tRPC's own JSON error)? */
async function isOurErrorBody(response: Response, trpc: boolean): Promise<boolean> {
  if (!isJson(response)) return false;
  if (trpc) return true;
  try {
    return errorBodySchema.safeParse(await response.clone().json()).success;
  } catch {
    return false;
  }
}

/**
 * A write whose body a form action could not read: text/plain (which SvelteKit lets through to
 * actions, as HTML forms may send it, but cannot parse) is answered 415 here; a multipart body
 * that does not parse makes `request.formData()` throw a 400 instead of a TypeError. (The 415
 * is returned, not thrown: an `error()` thrown from `handle` on a request whose path does not
 * decode brings SvelteKit 2.70's process down with an unhandled rejection.)
 */
function unreadableForm(request: Request): Response | undefined {
  if (request.method === 'GET' || request.method === 'HEAD') return undefined;
  const type = (request.headers.get('content-type') ?? '').split(';', 1)[0]!.trim().toLowerCase();
  if (type === 'text/plain') {
    return new Response(
      'Forms are sent as application/x-www-form-urlencoded or multipart/form-data.',
      { status: 415, headers: { 'content-type': 'text/plain; charset=utf-8' } },
    );
  }
  if (type === 'multipart/form-data') {
    const formData = request.formData.bind(request);
    request.formData = async () => {
      try {
        return await formData();
      } catch {
        error(400, 'The form could not be read.');
      }
    };
  }
  return undefined;
}

/**
 * What the hooks after this one threw, as an answer: a thrown `error()` or `redirect()` (or a
 * bug) must not reach SvelteKit from `handle`, because on a request whose path does not decode
 * (`/admin/nodes/%FF`) SvelteKit 2.70 then dies of an unhandled rejection, node and all.
 */
async function answerThrown(
  event: RequestEvent,
  resolve: Parameters<Handle>[0]['resolve'],
  api: boolean,
): Promise<Response> {
  try {
    return await resolve(event);
  } catch (thrown) {
    if (isRedirect(thrown)) {
      return new Response(null, { status: thrown.status, headers: { location: thrown.location } });
    }
    const status = isHttpError(thrown) ? thrown.status : 500;
    const message = isHttpError(thrown) ? thrown.body.message : INTERNAL.message;
    if (!isHttpError(thrown)) {
      (event.locals.node?.logger ?? console).error({ err: thrown }, 'a hook failed');
    }
    if (api) {
      return errorJson(status, codeOfStatus(status), message);
    }
    return new Response(message, {
      status,
      headers: { 'content-type': 'text/plain; charset=utf-8' },
    });
  }
}

/** Where bodies up to UPLOAD_MAX_BYTES are taken (adapter-node's cap is raised for them). */
export const UPLOAD_PATH = '/api/uploads';
/** Every other body: adapter-node's default, kept for all paths but the upload. */
export const BODY_LIMIT_BYTES = 512 * 1024;

/** A body declared larger than the path takes: refused before it is read. */
function tooLarge(request: Request, pathname: string): boolean {
  if (pathname === UPLOAD_PATH) return false;
  const declared = Number(request.headers.get('content-length') ?? 0);
  return Number.isFinite(declared) && declared > BODY_LIMIT_BYTES;
}

const edgeAnswer: Handle = async ({ event, resolve }) => {
  const { pathname } = event.url;
  const api = isJsonApiPath(pathname);
  if (tooLarge(event.request, pathname)) {
    const message = `The request body is too large (at most ${BODY_LIMIT_BYTES / 1024} KB here).`;
    return api
      ? errorJson(413, 'PAYLOAD_TOO_LARGE', message)
      : new Response(message, {
          status: 413,
          headers: { 'content-type': 'text/plain; charset=utf-8' },
        });
  }
  if (urlHasNul(event.url)) {
    return api
      ? errorJson(400, 'INVALID_REQUEST', NUL_REFUSED)
      : new Response(NUL_REFUSED, {
          status: 400,
          headers: { 'content-type': 'text/plain; charset=utf-8' },
        });
  }
  if (!api) return answerThrown(event, resolve, false);

  const response = await answerThrown(event, resolve, true);
  if (response.status < 400) return response;
  if (await isOurErrorBody(response, pathname === '/trpc' || pathname.startsWith('/trpc/'))) {
    return response;
  }
  const message =
    response.status === 404
      ? `No such endpoint: ${event.request.method} ${pathname}`
      : (MESSAGE_BY_STATUS[response.status] ??
        (response.status >= 500 ? INTERNAL.message : 'The request failed.'));
  const replaced = errorJson(response.status, codeOfStatus(response.status), message);
  // Keep every header but those of the replaced body (Allow on a 405, Retry-After on a 429,
  // cookies, security headers the hooks after this one set).
  const ofTheBody = new Set(['content-type', 'content-length', 'content-encoding', 'etag', 'link']);
  response.headers.forEach((value, name) => {
    if (!ofTheBody.has(name) && name !== 'set-cookie') replaced.headers.set(name, value);
  });
  for (const cookie of response.headers.getSetCookie())
    replaced.headers.append('set-cookie', cookie);
  return replaced;
};

/** The first hook; what it answers itself carries the security headers too. */
export const edge: Handle = async (input) =>
  withSecurityHeaders(await edgeAnswer(input), input.event.url);

/**
 * After the node's own hook (so a cross-origin post is refused as such first): a form post whose
 * body no action could read is answered here (`unreadableForm`).
 */
export const formBody: Handle = ({ event, resolve }) =>
  (!isJsonApiPath(event.url.pathname) && unreadableForm(event.request)) || resolve(event);
