import { z } from 'zod';

/**
 * Wire shapes of the Mastodon-compatible client API (docs/clients.md): what third-party apps send
 * to `/api/v1/apps`. Apps send the same fields as JSON, as a form or in the query string, and a
 * list either as an array or as one string separated by spaces or newlines.
 */

export const CLIENT_APP_LIMITS = {
  nameChars: 60,
  websiteChars: 2000,
  redirectUriChars: 2000,
  redirectUris: 10,
} as const;

/** The redirect URI of apps that show the code to the person instead of receiving it. */
export const OOB_REDIRECT_URI = 'urn:ietf:wg:oauth:2.0:oob';

const TOP_SCOPES = ['read', 'write', 'follow', 'push', 'profile'] as const;
const READ_SCOPES = [
  'accounts',
  'blocks',
  'bookmarks',
  'favourites',
  'filters',
  'follows',
  'lists',
  'mutes',
  'notifications',
  'search',
  'statuses',
];
const WRITE_SCOPES = [
  'accounts',
  'blocks',
  'bookmarks',
  'conversations',
  'favourites',
  'filters',
  'follows',
  'lists',
  'media',
  'mutes',
  'notifications',
  'reports',
  'statuses',
];

/** Every scope an app may ask for: Mastodon's top-level scopes and their granular forms. */
export const CLIENT_SCOPES: ReadonlySet<string> = new Set([
  ...TOP_SCOPES,
  ...READ_SCOPES.map((s) => `read:${s}`),
  ...WRITE_SCOPES.map((s) => `write:${s}`),
]);

/** Schemes a redirect may never use: they run or embed content instead of opening an app. */
const FORBIDDEN_SCHEMES = new Set(['javascript', 'data', 'vbscript', 'file', 'blob', 'about']);

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Why a redirect URI is refused, or null when it is acceptable: the out-of-band URN, https,
 * http to a loopback address (desktop apps listening locally), or an app's own scheme
 * (`com.example.app:/callback`). Never a fragment (the code is appended to the query).
 */
export function redirectUriProblem(uri: string): string | null {
  if (uri === OOB_REDIRECT_URI) return null;
  if (uri.length > CLIENT_APP_LIMITS.redirectUriChars) {
    return `a redirect URI is longer than ${CLIENT_APP_LIMITS.redirectUriChars} characters`;
  }
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return `the redirect URI "${uri}" is not an absolute URI`;
  }
  const scheme = url.protocol.slice(0, -1).toLowerCase();
  if (url.hash || uri.includes('#')) return 'a redirect URI may not contain a fragment';
  if (FORBIDDEN_SCHEMES.has(scheme)) return `the scheme "${scheme}:" is not allowed for redirects`;
  if (scheme === 'https') return null;
  if (scheme === 'http') {
    return LOOPBACK_HOSTS.has(url.hostname)
      ? null
      : 'an http redirect URI must point to a loopback address (use https otherwise)';
  }
  // An app's private scheme: reverse-domain names (RFC 8252) or any other scheme of its own.
  return /^[a-z][a-z0-9+.-]*$/.test(scheme) ? null : `the redirect URI "${uri}" is not valid`;
}

/** A list given as an array or as one string of items separated by whitespace. */
const spacedList = z
  .union([z.string(), z.array(z.string())])
  .transform((v) => (Array.isArray(v) ? v : v.split(/\s+/)).map((s) => s.trim()).filter(Boolean))
  .pipe(z.array(z.string()));

/** `POST /api/v1/apps`, after the body and query string were merged into one record. */
export const clientAppInputSchema = z.object({
  client_name: z
    .string({ error: "client_name can't be blank" })
    .trim()
    .min(1, "client_name can't be blank")
    .max(
      CLIENT_APP_LIMITS.nameChars,
      `client_name is longer than ${CLIENT_APP_LIMITS.nameChars} characters`,
    ),
  redirect_uris: spacedList
    .refine((list) => list.length > 0, "redirect_uris can't be blank")
    .refine((list) => list.length <= CLIENT_APP_LIMITS.redirectUris, {
      message: `at most ${CLIENT_APP_LIMITS.redirectUris} redirect URIs`,
    })
    .superRefine((list, ctx) => {
      const problem = list.map(redirectUriProblem).find((p) => p !== null);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    }),
  scopes: spacedList
    .optional()
    .transform((list) => (list && list.length > 0 ? [...new Set(list)] : ['read']))
    .pipe(z.array(z.string()))
    .superRefine((list, ctx) => {
      const unknown = list.find((s) => !CLIENT_SCOPES.has(s));
      if (unknown) ctx.addIssue({ code: 'custom', message: `the scope "${unknown}" is not known` });
    }),
  website: z
    .string()
    .trim()
    .max(CLIENT_APP_LIMITS.websiteChars)
    .optional()
    .transform((v) => v || null)
    .pipe(z.string().nullable())
    .refine((v) => v === null || /^https?:\/\/[^\s]+$/i.test(v), 'website must be an http(s) URL'),
});

export type ClientAppInput = z.output<typeof clientAppInputSchema>;

/** Mastodon's Application entity, as `POST /api/v1/apps` answers it (the secret only then). */
export interface ClientApplication {
  id: string;
  name: string;
  website: string | null;
  scopes: string[];
  redirect_uri: string;
  redirect_uris: string[];
  client_id: string;
  client_secret: string;
}

/** Mastodon's error body: one sentence under `error` (and an optional `error_description`). */
export interface ClientApiError {
  error: string;
  error_description?: string;
}
