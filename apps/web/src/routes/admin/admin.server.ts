import { error, fail, type ActionFailure } from '@sveltejs/kit';
import { failPage, isUnauthorized, loginRedirect, toFailure } from '$lib/server/content-load';

// Every admin page load and form action calls `locals.api.admin.*`, whose procedures check the
// admin role on each call: signed out → the login page (coming back here), not an admin → 403.
// No layout is trusted with the check.

/** A page load's admin call: failures become the login redirect or this page's error. */
export async function adminLoad<T>(url: URL, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (cause) {
    failPage(cause, url);
  }
}

/**
 * A form action's admin call. A refusal of the caller (login, 403) replaces the page; a refusal
 * of the input (400, 404…) comes back to the form as `{ error }` plus `keep` (what was typed).
 */
export async function adminAction<T, K extends Record<string, unknown> = Record<never, never>>(
  url: URL,
  call: () => Promise<T>,
  keep?: K,
): Promise<T | ActionFailure<{ error: string } & K>> {
  try {
    return await call();
  } catch (cause) {
    if (isUnauthorized(cause)) loginRedirect(url);
    const failure = toFailure(cause);
    if (failure.code === 'FORBIDDEN') error(403, { message: failure.message, code: 'FORBIDDEN' });
    if (failure.status === 500) throw cause;
    return fail(failure.status, { error: failure.message, ...(keep as K) });
  }
}

/** A form field as a trimmed string ('' when absent). */
export function field(form: FormData, name: string): string {
  const value = form.get(name);
  return typeof value === 'string' ? value.trim() : '';
}

/**
 * A whole number typed into a form, or NaN: the procedure's input check refuses NaN with a
 * clear message, so forms need no validation of their own.
 */
export function intField(form: FormData, name: string): number {
  const text = field(form, name);
  return /^-?\d+$/.test(text) ? Number(text) : Number.NaN;
}
