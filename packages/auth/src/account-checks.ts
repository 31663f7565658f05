import {
  checkKeyBackup,
  importPublicKeyPem,
  ok,
  parseDidKey,
  publicKeyToDidKey,
  refuse,
  type Refusal,
  type Result,
} from '@swarm/contract';
import { Prisma } from '@swarm/db';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from './password.ts';

// The input rules and refusals the account use cases share (sign-up, the password and key,
// the settings form): each rule is written here once.

export const DISPLAY_NAME_MAX_LENGTH = 64;
/** The rule is the domain's (`checkKeyBackup`); re-exported for callers of this package. */
export { KEY_BACKUP_MAX_BYTES } from '@swarm/contract';
/** SPKI PEM of a P-256 key is ~180 bytes. */
const PUBLIC_KEY_MAX_LENGTH = 4096;

export interface KeyInput {
  /** SPKI PEM of the user's ECDSA P-256 public key. */
  publicKey: string;
  /** `did:key:zDn…` of the same key. */
  did: string;
  encryptedBackup: string;
}

/** An invalid input, about `field` (the name of the procedure's input member). */
export const invalid = (field: string, message: string) =>
  refuse('INVALID_REQUEST', message, { field });
export const notFound = () => refuse('USER_NOT_FOUND', 'No such account.');
export const keyTaken = () =>
  refuse('KEY_CONFLICT', 'This key is already registered to another account.', { field: 'did' });

export function checkPassword(
  password: string,
  what = 'Password',
  field = 'password',
): Result<void, Refusal> {
  if (typeof password !== 'string' || password.length < PASSWORD_MIN_LENGTH) {
    return refuse('INVALID_REQUEST', `${what} needs at least ${PASSWORD_MIN_LENGTH} characters.`, {
      field,
    });
  }
  if (password.length > PASSWORD_MAX_LENGTH) {
    return refuse(
      'INVALID_REQUEST',
      `${what} may have at most ${PASSWORD_MAX_LENGTH} characters.`,
      {
        field,
      },
    );
  }
  return ok(undefined);
}

// Control characters (newlines, NUL, bidi overrides are Cf, not Cc: allowed in names) break
// single-line rendering and logs.
const CONTROL = /\p{Cc}/u;

export function checkDisplayName(input: string, fallback: string): Result<string, Refusal> {
  const name = (input ?? '').trim();
  if (name.length > DISPLAY_NAME_MAX_LENGTH) {
    return invalid(
      'displayName',
      `Display name may have at most ${DISPLAY_NAME_MAX_LENGTH} characters.`,
    );
  }
  if (CONTROL.test(name)) {
    return invalid('displayName', 'Display name may not contain control characters.');
  }
  return ok(name === '' ? fallback : name);
}

export function checkBackup(text: string): Result<void, Refusal> {
  const backup = checkKeyBackup(text);
  return backup.ok
    ? ok(undefined)
    : refuse('INVALID_REQUEST', backup.reason, { field: 'encryptedBackup' });
}

/**
 * The did must be the did:key of exactly this public key (docs/protocol.md, Identifiers), and the
 * backup sane.
 */
export async function checkKey(key: KeyInput): Promise<Result<KeyInput, Refusal>> {
  if (typeof key.publicKey !== 'string' || key.publicKey.length > PUBLIC_KEY_MAX_LENGTH) {
    return invalid('publicKey', 'The public key is missing or too long.');
  }
  const did = parseDidKey(key.did);
  if (!did.ok) return invalid('did', `The did is not a P-256 did:key (${did.reason}).`);
  const publicKey = await importPublicKeyPem(key.publicKey);
  if (!publicKey.ok)
    return invalid('publicKey', `The public key is not a P-256 SPKI PEM (${publicKey.reason}).`);
  if ((await publicKeyToDidKey(publicKey.value)) !== key.did) {
    return invalid('did', 'The did does not belong to the public key.');
  }
  const backup = checkBackup(key.encryptedBackup);
  if (!backup.ok) return backup;
  return ok(key);
}

/** The unique indexes of `users` a write can trip over (prisma/migrations, init), by name. */
const USER_UNIQUE = { users_handle_key: 'handle', users_did_key: 'did' } as const;
type UserUnique = (typeof USER_UNIQUE)[keyof typeof USER_UNIQUE];

/**
 * Which unique column of `User` a failed write violated, from Prisma's P2002 metadata: the
 * classic engine names the columns (`meta.target`), a driver adapter the violated constraint
 * (`meta.driverAdapterError.cause.constraint`: its `fields` or its index name). Null when it is
 * not a unique violation of those two (the caller rethrows: a bug, not a refusal).
 */
export function uniqueViolation(error: unknown): UserUnique | null {
  if (!(error instanceof Prisma.PrismaClientKnownRequestError) || error.code !== 'P2002') {
    return null;
  }
  const meta = (error.meta ?? {}) as {
    target?: unknown;
    driverAdapterError?: { cause?: { constraint?: { fields?: unknown; index?: unknown } } };
  };
  const constraint = meta.driverAdapterError?.cause?.constraint;
  const fields = [meta.target, constraint?.fields].flatMap((value) =>
    Array.isArray(value) ? value.map(String) : [],
  );
  const names = [meta.target, constraint?.index].filter((v): v is string => typeof v === 'string');
  for (const [index, column] of Object.entries(USER_UNIQUE)) {
    if (names.includes(index) || fields.includes(column)) return column;
  }
  return null;
}
