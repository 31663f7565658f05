import { createPublicKey, createSign, createVerify, type KeyObject } from 'node:crypto';

// §2 of the origin profile (docs/origin-profile.md): canonical JSON and node signatures.

/** The origin's canonical JSON (§2): sorted keys, `undefined` members skipped, `[1,,2]` holes. */
export function originCanonicalJson(value: unknown): string {
  if (value === undefined) return '';
  if (value === null) return 'null';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new TypeError('cannot canonicalise a non-finite number');
    return value.toString();
  }
  if (typeof value === 'string') return JSON.stringify(value);
  if (value instanceof Date || value instanceof RegExp) {
    throw new TypeError('cannot canonicalise a Date or RegExp');
  }
  if (Array.isArray(value)) {
    const items: string[] = [];
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      items.push(item === undefined ? '' : originCanonicalJson(item));
    }
    return `[${items.join(',')}]`;
  }
  if (typeof value === 'object') {
    const record = value as Record<string, unknown>;
    const members = Object.keys(record)
      .sort()
      .filter((key) => record[key] !== undefined)
      .map((key) => `${JSON.stringify(key)}:${originCanonicalJson(record[key])}`);
    return `{${members.join(',')}}`;
  }
  throw new TypeError(`cannot canonicalise a ${typeof value}`);
}

/** Standard base64 of the DER ECDSA P-256/SHA-256 signature over the canonical JSON (§2). */
export function originSign(privateKey: KeyObject | string, payload: unknown): string {
  return createSign('SHA256').update(originCanonicalJson(payload)).sign(privateKey, 'base64');
}

/** A PEM or a bare base64 SPKI DER key (§1), as the origin accepts both. */
function publicKeyFrom(text: string): KeyObject | undefined {
  try {
    if (text.includes('-----BEGIN')) return createPublicKey(text);
    return createPublicKey({ key: Buffer.from(text, 'base64'), format: 'der', type: 'spki' });
  } catch {
    return undefined;
  }
}

/** The origin's check (§2): `createVerify('SHA256')`, base64 DER; never throws. */
export function originVerify(publicKey: string, payload: unknown, signature: string): boolean {
  const key = publicKeyFrom(publicKey);
  if (!key) return false;
  try {
    return createVerify('SHA256')
      .update(originCanonicalJson(payload))
      .verify(key, signature, 'base64');
  } catch {
    return false;
  }
}

/** `body` plus a body `signature` made the origin's way (over the body without `signature`). */
export function originSignBody<T extends Record<string, unknown>>(
  privateKey: KeyObject | string,
  body: T,
): T & { signature: string } {
  const { signature: _ignored, ...unsigned } = body;
  return { ...(unsigned as T), signature: originSign(privateKey, unsigned) };
}

/** §1/§6: `http` when the domain contains `localhost`, else `https`. */
export function originSchemeFor(domain: string): 'http' | 'https' {
  return domain.includes('localhost') ? 'http' : 'https';
}
