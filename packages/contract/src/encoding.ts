import { base58, base64, base64urlnopad } from '@scure/base';

// The one place where bytes become text and back; everything else imports these.

const textEncoder = new TextEncoder();
const textDecoder = new TextDecoder('utf-8', { fatal: true });

export function utf8Encode(text: string): Uint8Array {
  return textEncoder.encode(text);
}

/** Throws on invalid UTF-8 (fatal decoder), so garbage never turns into U+FFFD silently. */
export function utf8Decode(bytes: Uint8Array): string {
  return textDecoder.decode(bytes);
}

export function toBytes(data: Uint8Array | string): Uint8Array {
  return typeof data === 'string' ? utf8Encode(data) : data;
}

/** base64url without padding (RFC 4648 §5), the form every signature and hash on the wire uses. */
export function base64urlEncode(bytes: Uint8Array): string {
  return base64urlnopad.encode(bytes);
}

/** Decodes base64url; tolerates `=` padding from other implementations. Throws on any other junk. */
export function base64urlDecode(text: string): Uint8Array {
  return base64urlnopad.decode(text.replace(/={1,2}$/, ''));
}

export function base58btcEncode(bytes: Uint8Array): string {
  return base58.encode(bytes);
}

export function base58btcDecode(text: string): Uint8Array {
  return base58.decode(text);
}

/** `len` cryptographically random bytes from WebCrypto (Node 20 and browsers). */
export function randomBytes(len: number): Uint8Array {
  return globalThis.crypto.getRandomValues(new Uint8Array(len));
}

/** Standard base64 with padding: only for PEM bodies, which are not base64url. */
export function base64Encode(bytes: Uint8Array): string {
  return base64.encode(bytes);
}

export function base64Decode(text: string): Uint8Array {
  return base64.decode(text);
}

export const NUL_REFUSED = 'Text may not contain NUL characters (U+0000).';

/**
 * True when any string in a parsed JSON value (member names too) holds U+0000. Postgres text
 * cannot store it, so every input is checked before it reaches the database.
 */
export function containsNul(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('\u0000');
  if (Array.isArray(value)) return value.some(containsNul);
  if (typeof value === 'object' && value !== null) {
    return Object.entries(value).some(
      ([key, member]) => key.includes('\u0000') || containsNul(member),
    );
  }
  return false;
}

/**
 * True when a request's path or query decodes to a string holding U+0000. `%00` is the only
 * way to write it there (a URL carries no raw control bytes, and one decoding step turns `%00`,
 * and nothing else, into U+0000), so both edges refuse such a request before any route runs.
 */
export function urlHasNul(url: URL): boolean {
  return /%00/i.test(url.pathname) || /%00/i.test(url.search);
}
