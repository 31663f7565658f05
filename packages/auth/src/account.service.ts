import { encodeBase32LowerCaseNoPadding } from '@oslojs/encoding';
import {
  err,
  importPublicKeyPem,
  isHttpUrl,
  ok,
  parseDidKey,
  parseLocalHandle,
  publicKeyToDidKey,
  type Result,
} from '@swarm/contract';
import { Prisma, type Db } from '@swarm/db';
import {
  hashPassword,
  PASSWORD_MAX_LENGTH,
  PASSWORD_MIN_LENGTH,
  verifyPassword,
} from './password.ts';
import {
  SESSION_USER_SELECT,
  toSessionUser,
  type NewSession,
  type SessionService,
} from './session.service.ts';
import { checkKeyBackup, refusal, refuse, type Refusal } from '@swarm/contract';
import type { AuthClock, AuthLimits, KeyBackup, SessionUser, UserSettings } from './types.ts';

export const DISPLAY_NAME_MAX_LENGTH = 64;
export const BIO_MAX_LENGTH = 500;
/** The rule is the domain's (`checkKeyBackup`); re-exported for callers of this package. */
export { KEY_BACKUP_MAX_BYTES } from '@swarm/contract';
/** SPKI PEM of a P-256 key is ~180 bytes. */
const PUBLIC_KEY_MAX_LENGTH = 4096;

/** One message for every failed login, so answers never tell which handles exist. */
export const WRONG_CREDENTIALS_MESSAGE = 'Wrong handle or password.';

export interface LoginLimits {
  /**
   * Attempts per handle: a burst, then `perMinute` (guessing one account's password). A
   * successful login refills the handle's bucket.
   */
  perHandle: { burst: number; perMinute: number };
  /** Attempts per client IP (guessing across many accounts). */
  perIp: { burst: number; perMinute: number };
}

export const DEFAULT_LOGIN_LIMITS: LoginLimits = {
  perHandle: { burst: 10, perMinute: 1 },
  perIp: { burst: 30, perMinute: 10 },
};

/** Names of the login and sign-up limits in the node's shared `Limits` (docs/deployment.md "Replicas"). */
export const LOGIN_HANDLE_LIMIT = 'login-handle';
export const LOGIN_IP_LIMIT = 'login-ip';
export const SIGN_UP_IP_LIMIT = 'signup-ip';

const rule = (limit: { burst: number; perMinute: number }) => ({
  points: limit.perMinute,
  windowMs: 60_000,
  burst: limit.burst,
});

export interface SignUpLimits {
  /**
   * Sign-ups per client IP: `perHour` at once, then refilled at `perHour` an hour (each costs
   * an argon2 hash and makes an account). Charged once the input passed the cheap checks.
   */
  perIp: { perHour: number };
}

export const DEFAULT_SIGN_UP_LIMITS: SignUpLimits = { perIp: { perHour: 5 } };

export interface KeyInput {
  /** SPKI PEM of the user's ECDSA P-256 public key. */
  publicKey: string;
  /** `did:key:zDn…` of the same key. */
  did: string;
  encryptedBackup: string;
}

export interface SignUpInput {
  handle: string;
  displayName: string;
  password: string;
  key?: KeyInput | null;
}

export interface CreateUserInput {
  handle: string;
  displayName?: string;
  /** Generated (and returned once) when absent. */
  password?: string;
  isAdmin: boolean;
}

export interface SignedIn extends NewSession {
  user: SessionUser;
}

export interface LoggedIn extends SignedIn {
  keyBackup: KeyBackup | null;
}

export interface SettingsInput {
  displayName: string;
  bio: string;
  /** "" clears a URL. */
  avatarUrl: string;
  headerUrl: string;
  website: string;
  isNsfw: boolean;
  showNsfw: boolean;
}

export interface AccountService {
  /**
   * Sign-up from the web: the first account anyone can log in with becomes admin. With a
   * client IP (every web request), the IP's sign-up budget is charged.
   */
  signUp(input: SignUpInput, meta?: { clientIp: string }): Promise<Result<SignedIn, Refusal>>;
  /** Operators (CLI, admin API): explicit admin flag, no session. */
  createUser(
    input: CreateUserInput,
  ): Promise<Result<{ user: SessionUser; generatedPassword: string | null }, Refusal>>;
  logIn(
    input: { handle: string; password: string },
    meta: { clientIp: string },
  ): Promise<Result<LoggedIn, Refusal>>;
  logOut(sessionId: string): Promise<void>;
  /** Verifies the current password, stores the new one, ends the user's other sessions. */
  changePassword(
    caller: { userId: string; sessionId: string },
    input: { currentPassword: string; newPassword: string; encryptedBackup?: string | null },
  ): Promise<Result<{ endedSessions: number }, Refusal>>;
  /**
   * Only when the account has no key yet, or the same key (then the backup is replaced). The
   * password is checked because the browser encrypted the backup with it: a mistyped one would
   * leave a backup nobody can restore.
   */
  registerKey(
    userId: string,
    key: KeyInput & { currentPassword: string },
  ): Promise<Result<KeyBackup, Refusal>>;
  keyBackup(userId: string): Promise<KeyBackup | null>;
  settings(userId: string): Promise<Result<UserSettings, Refusal>>;
  updateSettings(userId: string, input: SettingsInput): Promise<Result<UserSettings, Refusal>>;
}

/** An invalid input, about `field` (the name of the procedure's input member). */
const invalid = (field: string, message: string) => refuse('INVALID_REQUEST', message, { field });
const notFound = () => refuse('USER_NOT_FOUND', 'No such account.');
const keyTaken = () =>
  refuse('KEY_CONFLICT', 'This key is already registered to another account.', { field: 'did' });

function checkPassword(password: string, what = 'Password', field = 'password'): Refusal | null {
  if (typeof password !== 'string' || password.length < PASSWORD_MIN_LENGTH) {
    return refusal('INVALID_REQUEST', `${what} needs at least ${PASSWORD_MIN_LENGTH} characters.`, {
      field,
    });
  }
  if (password.length > PASSWORD_MAX_LENGTH) {
    return refusal(
      'INVALID_REQUEST',
      `${what} may have at most ${PASSWORD_MAX_LENGTH} characters.`,
      {
        field,
      },
    );
  }
  return null;
}

// Control characters (newlines, NUL, bidi overrides are Cf, not Cc: allowed in names) break
// single-line rendering and logs.
const CONTROL = /\p{Cc}/u;

function checkDisplayName(input: string, fallback: string): Result<string, Refusal> {
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

function checkBackup(text: string): Refusal | null {
  const backup = checkKeyBackup(text);
  return backup.ok ? null : refusal('INVALID_REQUEST', backup.reason, { field: 'encryptedBackup' });
}

/** The did must be the did:key of exactly this public key (DESIGN §3), and the backup sane. */
async function checkKey(key: KeyInput): Promise<Result<KeyInput, Refusal>> {
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
  if (backup) return err(backup);
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

function settingsOf(row: UserSettings): UserSettings {
  return {
    handle: row.handle,
    displayName: row.displayName,
    bio: row.bio,
    avatarUrl: row.avatarUrl,
    headerUrl: row.headerUrl,
    website: row.website,
    isNsfw: row.isNsfw,
    showNsfw: row.showNsfw,
  };
}

const SETTINGS_SELECT = {
  handle: true,
  displayName: true,
  bio: true,
  avatarUrl: true,
  headerUrl: true,
  website: true,
  isNsfw: true,
  showNsfw: true,
} as const;

/** Serialises "is this the first account?" across replicas (a transaction-scoped lock). */
const FIRST_ADMIN_LOCK = 0x53574144; // "SWAD"

export function createAccountService(deps: {
  db: Db;
  clock: AuthClock;
  sessions: SessionService;
  loginLimits?: LoginLimits;
  signUpLimits?: SignUpLimits;
  /** Where the buckets live: the node context's shared `limits`, injected by the entry point. */
  limits: AuthLimits;
}): AccountService {
  const { prisma } = deps.db;
  const { sessions } = deps;
  const loginLimits = deps.loginLimits ?? DEFAULT_LOGIN_LIMITS;
  const { limits } = deps;
  const perHandle = rule(loginLimits.perHandle);
  const perIp = rule(loginLimits.perIp);
  const signUpsPerHour = (deps.signUpLimits ?? DEFAULT_SIGN_UP_LIMITS).perIp.perHour;
  const signUpsPerIp = { points: signUpsPerHour, windowMs: 3_600_000 };

  // A real argon2id hash to verify against when the handle is unknown: same work, same timing.
  let dummyHash: Promise<string> | undefined;
  const dummy = () => (dummyHash ??= hashPassword(randomPassword()));

  async function throttle(keys: { ip?: string; handle: string }): Promise<Refusal | null> {
    const ip =
      keys.ip === undefined
        ? { ok: true as const }
        : await limits.take(LOGIN_IP_LIMIT, keys.ip, perIp);
    const handle = ip.ok ? await limits.take(LOGIN_HANDLE_LIMIT, keys.handle, perHandle) : ip;
    if (handle.ok) return null;
    return refusal(
      'RATE_LIMITED',
      `Too many login attempts; try again in ${handle.retryAfterSec} s.`,
      { details: { retryAfterSec: handle.retryAfterSec } },
    );
  }

  async function throttleSignUp(ip: string): Promise<Refusal | null> {
    const taken = await limits.take(SIGN_UP_IP_LIMIT, ip, signUpsPerIp);
    if (taken.ok) return null;
    const minutes = Math.ceil(taken.retryAfterSec / 60);
    return refusal(
      'RATE_LIMITED',
      `Too many sign-ups from your address; try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`,
      { details: { retryAfterSec: taken.retryAfterSec } },
    );
  }

  async function insertUser(input: {
    handle: string;
    displayName: string;
    password: string;
    key?: KeyInput | null;
    isAdmin: boolean | 'if-first';
    /** Called once the input passed the cheap checks, before the password is hashed. */
    charge?: () => Promise<Refusal | null>;
  }): Promise<Result<SessionUser, Refusal>> {
    const handle = parseLocalHandle(input.handle);
    if (!handle.ok) return invalid('handle', `Handle: ${handle.reason}.`);
    const displayName = checkDisplayName(input.displayName, handle.value);
    if (!displayName.ok) return displayName;
    const badPassword = checkPassword(input.password);
    if (badPassword) return err(badPassword);
    let key: KeyInput | null = null;
    if (input.key) {
      const checked = await checkKey(input.key);
      if (!checked.ok) return checked;
      key = checked.value;
    }
    const refused = await input.charge?.();
    if (refused) return err(refused);
    const passwordHash = await hashPassword(input.password);
    try {
      const user = await prisma.$transaction(async (tx) => {
        let isAdmin = input.isAdmin === true;
        if (input.isAdmin === 'if-first') {
          await tx.$queryRaw`SELECT 1 AS locked FROM pg_advisory_xact_lock(${FIRST_ADMIN_LOCK}::bigint)`;
          // Demo accounts (SWARM_DEMO_CONTENT) have no password hash ("!demo-account") and
          // nobody can log in as them: they do not make a later sign-up "not the first".
          const people = await tx.user.count({
            where: { NOT: { passwordHash: { startsWith: '!' } } },
          });
          isAdmin = people === 0;
        }
        return tx.user.create({
          data: {
            handle: handle.value,
            displayName: displayName.value,
            passwordHash,
            isAdmin,
            did: key?.did ?? null,
            publicKey: key?.publicKey ?? null,
            encryptedKeyBackup: key?.encryptedBackup ?? null,
            createdAt: deps.clock.now(),
          },
          select: SESSION_USER_SELECT,
        });
      });
      return ok(toSessionUser(user));
    } catch (error) {
      const which = uniqueViolation(error);
      if (which === 'did') return keyTaken();
      if (which === 'handle') {
        return refuse('HANDLE_TAKEN', `The handle "${handle.value}" is taken.`, {
          field: 'handle',
        });
      }
      throw error;
    }
  }

  async function loadKeyBackup(userId: string): Promise<KeyBackup | null> {
    const row = await prisma.user.findUnique({
      where: { id: userId },
      select: { did: true, publicKey: true, encryptedKeyBackup: true },
    });
    if (!row?.did || !row.publicKey || !row.encryptedKeyBackup) return null;
    return { did: row.did, publicKey: row.publicKey, encryptedBackup: row.encryptedKeyBackup };
  }

  return {
    async signUp(input, meta) {
      const user = await insertUser({
        ...input,
        isAdmin: 'if-first',
        charge: meta ? () => throttleSignUp(meta.clientIp) : undefined,
      });
      if (!user.ok) return user;
      const session = await sessions.create(user.value.id);
      return ok({ ...session, user: user.value });
    },

    async createUser(input) {
      const generatedPassword = input.password === undefined ? randomPassword() : null;
      const user = await insertUser({
        handle: input.handle,
        displayName: input.displayName ?? '',
        password: input.password ?? generatedPassword!,
        isAdmin: input.isAdmin,
      });
      if (!user.ok) return user;
      return ok({ user: user.value, generatedPassword });
    },

    async logIn(input, meta) {
      const typed = typeof input.handle === 'string' ? input.handle.trim().toLowerCase() : '';
      const handleKey = typed.slice(0, 64);
      const throttled = await throttle({ ip: meta.clientIp, handle: handleKey });
      if (throttled) return err(throttled);
      const wrong = refuse('UNAUTHORIZED', WRONG_CREDENTIALS_MESSAGE, { field: 'password' });
      const password = typeof input.password === 'string' ? input.password : '';
      const handle = parseLocalHandle(typed);
      const user = handle.ok
        ? await prisma.user.findUnique({
            where: { handle: handle.value },
            select: { ...SESSION_USER_SELECT, passwordHash: true },
          })
        : null;
      if (!user || password.length > PASSWORD_MAX_LENGTH) {
        await verifyPassword(await dummy(), password.slice(0, PASSWORD_MAX_LENGTH));
        return wrong;
      }
      if (!(await verifyPassword(user.passwordHash, password))) return wrong;
      // The owner is in: earlier failures on this handle stop counting (the IP budget stays).
      await limits.reset(LOGIN_HANDLE_LIMIT, handleKey);
      const session = await sessions.create(user.id);
      return ok({ ...session, user: toSessionUser(user), keyBackup: await loadKeyBackup(user.id) });
    },

    logOut(sessionId) {
      return sessions.invalidate(sessionId);
    },

    async changePassword(caller, input) {
      const badPassword = checkPassword(input.newPassword, 'The new password', 'newPassword');
      if (badPassword) return err(badPassword);
      const user = await prisma.user.findUnique({
        where: { id: caller.userId },
        select: { handle: true, passwordHash: true, did: true },
      });
      if (!user) return notFound();
      // The key backup is encrypted with the password: changing one without the other would
      // lock the key out of every other browser, so a user with a key must send both.
      if (user.did && input.encryptedBackup == null) {
        return invalid(
          'encryptedBackup',
          'Changing the password needs your key backup re-encrypted with the new password; your browser does this, so JavaScript is required.',
        );
      }
      if (input.encryptedBackup != null) {
        if (!user.did)
          return invalid('encryptedBackup', 'Register a key before uploading its backup.');
        const badBackup = checkBackup(input.encryptedBackup);
        if (badBackup) return err(badBackup);
      }
      // Same budget as logins: a stolen session must not become a password-guessing oracle.
      const throttled = await throttle({ handle: user.handle });
      if (throttled) return err(throttled);
      if (!(await verifyPassword(user.passwordHash, String(input.currentPassword ?? '')))) {
        return refuse('UNAUTHORIZED', 'The current password is wrong.', {
          field: 'currentPassword',
        });
      }
      const passwordHash = await hashPassword(input.newPassword);
      const ended = await prisma.$transaction(async (tx) => {
        await tx.user.update({
          where: { id: caller.userId },
          data: {
            passwordHash,
            ...(input.encryptedBackup != null ? { encryptedKeyBackup: input.encryptedBackup } : {}),
          },
        });
        return tx.session.deleteMany({
          where: { userId: caller.userId, id: { not: caller.sessionId } },
        });
      });
      return ok({ endedSessions: ended.count });
    },

    async registerKey(userId, input) {
      const key = await checkKey(input);
      if (!key.ok) return key;
      const owner = await prisma.user.findUnique({
        where: { id: userId },
        select: { handle: true, passwordHash: true },
      });
      if (!owner) return notFound();
      const throttled = await throttle({ handle: owner.handle });
      if (throttled) return err(throttled);
      if (!(await verifyPassword(owner.passwordHash, String(input.currentPassword ?? '')))) {
        return refuse('UNAUTHORIZED', 'The password is wrong.', { field: 'currentPassword' });
      }
      await limits.reset(LOGIN_HANDLE_LIMIT, owner.handle);
      try {
        // Conditional update: two browsers racing to register different keys cannot both win.
        const updated = await prisma.user.updateMany({
          where: { id: userId, OR: [{ did: null }, { did: key.value.did }] },
          data: {
            did: key.value.did,
            publicKey: key.value.publicKey,
            encryptedKeyBackup: key.value.encryptedBackup,
          },
        });
        if (updated.count === 0) {
          const exists = await prisma.user.count({ where: { id: userId } });
          if (exists === 0) return notFound();
          return refuse('KEY_CONFLICT', 'A different key is already registered for this account.', {
            field: 'did',
          });
        }
      } catch (error) {
        if (uniqueViolation(error) === 'did') return keyTaken();
        throw error;
      }
      return ok({
        did: key.value.did,
        publicKey: key.value.publicKey,
        encryptedBackup: key.value.encryptedBackup,
      });
    },

    keyBackup: loadKeyBackup,

    async settings(userId) {
      const row = await prisma.user.findUnique({ where: { id: userId }, select: SETTINGS_SELECT });
      return row ? ok(settingsOf(row)) : notFound();
    },

    async updateSettings(userId, input) {
      const current = await prisma.user.findUnique({
        where: { id: userId },
        select: { handle: true },
      });
      if (!current) return notFound();
      const displayName = checkDisplayName(input.displayName, current.handle);
      if (!displayName.ok) return displayName;
      const bio = (input.bio ?? '').trim();
      if (bio.length > BIO_MAX_LENGTH) {
        return invalid('bio', `Bio may have at most ${BIO_MAX_LENGTH} characters.`);
      }
      const urls: Record<'avatarUrl' | 'headerUrl' | 'website', string | null> = {
        avatarUrl: null,
        headerUrl: null,
        website: null,
      };
      const labels = { avatarUrl: 'Avatar URL', headerUrl: 'Header URL', website: 'Website' };
      for (const field of ['avatarUrl', 'headerUrl', 'website'] as const) {
        const value = (input[field] ?? '').trim();
        if (value !== '' && !isHttpUrl(value)) {
          return invalid(
            field,
            `${labels[field]} must be an http(s) URL of at most 2048 characters.`,
          );
        }
        urls[field] = value === '' ? null : value;
      }
      const row = await prisma.user.update({
        where: { id: userId },
        data: {
          displayName: displayName.value,
          bio,
          ...urls,
          isNsfw: Boolean(input.isNsfw),
          showNsfw: Boolean(input.showNsfw),
        },
        select: SETTINGS_SELECT,
      });
      return ok(settingsOf(row));
    },
  };
}

/** 120 random bits, lower-case base32 (24 characters): for generated passwords. */
export function randomPassword(): string {
  return encodeBase32LowerCaseNoPadding(crypto.getRandomValues(new Uint8Array(15)));
}
