import { error, redirect } from '@sveltejs/kit';
import { TRPCError } from '@trpc/server';
import { getHTTPStatusCodeFromError } from '@trpc/server/http';
import { loginPath } from '../next-path';

/**
 * How the content pages turn tRPC answers into pages: the procedures' expected failures
 * (TRPCError codes with human messages) become SvelteKit error pages, form failures, login
 * redirects or values for streamed sections. Mapped here once, not in every load.
 */

export interface CallFailure {
  status: number;
  code: TRPCError['code'] | 'INTERNAL_SERVER_ERROR';
  message: string;
}

/** A failure as data; unexpected errors (bugs) keep a generic message, the cause is logged. */
export function toFailure(cause: unknown): CallFailure {
  if (cause instanceof TRPCError && cause.code !== 'INTERNAL_SERVER_ERROR') {
    return { status: getHTTPStatusCodeFromError(cause), code: cause.code, message: cause.message };
  }
  return {
    status: 500,
    code: 'INTERNAL_SERVER_ERROR',
    message: 'Something went wrong on this node.',
  };
}

export function isUnauthorized(cause: unknown): boolean {
  return cause instanceof TRPCError && cause.code === 'UNAUTHORIZED';
}

/** The login page, coming back to `url` afterwards. */
export function loginRedirect(url: URL): never {
  redirect(303, loginPath(url));
}

/** Rethrows a procedure's failure as this page's error (404, 502…) or a login redirect. */
export function failPage(cause: unknown, url: URL): never {
  if (isUnauthorized(cause)) loginRedirect(url);
  if (cause instanceof TRPCError && cause.code !== 'INTERNAL_SERVER_ERROR') {
    const { status, code, message } = toFailure(cause);
    error(status, { message, code });
  }
  throw cause;
}

export type Outcome<T> = { ok: true; value: T } | ({ ok: false } & CallFailure);

/**
 * For sections streamed to the page (remote fetches that may take seconds): always resolves,
 * because a rejected streamed promise reaches the browser without its message.
 */
export async function settle<T>(
  call: Promise<T>,
  log?: (cause: unknown) => void,
): Promise<Outcome<T>> {
  try {
    return { ok: true, value: await call };
  } catch (cause) {
    const failure = toFailure(cause);
    if (failure.status === 500) log?.(cause);
    return { ok: false, ...failure };
  }
}

/**
 * Remote sections are streamed on in-app navigations (the page shows "Loading…" meanwhile) and
 * awaited on full page loads, so the server-rendered page is complete without JavaScript
 * (streamed values arrive through a script). Use as `event.isDataRequest ? call : await call`.
 */

/**
 * Form actions: runs the procedure call; signed out goes to the login page, an expected failure
 * comes back as a value for `fail(status, …)`, a bug is rethrown (the error page, logged).
 */
export async function attempt<T>(url: URL, call: () => Promise<T>): Promise<Outcome<T>> {
  try {
    return { ok: true, value: await call() };
  } catch (cause) {
    if (isUnauthorized(cause)) loginRedirect(url);
    const failure = toFailure(cause);
    if (failure.status === 500) throw cause;
    return { ok: false, ...failure };
  }
}
