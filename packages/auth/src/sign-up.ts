import { err, ok, parseLocalHandle, type Result } from '@swarm/contract';
import { RefusalError, refuse, type Refusal } from '@swarm/contract';
import type { Db } from '@swarm/db';
import {
  checkDisplayName,
  checkKey,
  checkPassword,
  invalid,
  keyTaken,
  uniqueViolation,
  type KeyInput,
} from './account-checks.ts';
import { hashPassword, randomPassword } from './password.ts';
import { admitSignUp } from './registrations.ts';
import {
  SESSION_USER_SELECT,
  toSessionUser,
  type NewSession,
  type SessionService,
} from './session.service.ts';
import type { AuthClock, AuthLimits, SessionUser } from './types.ts';

// Making accounts: sign-up from the web and accounts made by operators (CLI, admin API).

/** The name of the sign-up limit in the node's shared `Limits` (docs/deployment.md "Replicas"). */
export const SIGN_UP_IP_LIMIT = 'signup-ip';

export interface SignUpLimits {
  /**
   * Sign-ups per client IP: `perHour` at once, then refilled at `perHour` an hour (each costs
   * an argon2 hash and makes an account). Charged once the input passed the cheap checks.
   */
  perIp: { perHour: number };
}

export const DEFAULT_SIGN_UP_LIMITS: SignUpLimits = { perIp: { perHour: 5 } };

export interface SignUpInput {
  handle: string;
  displayName: string;
  password: string;
  key?: KeyInput | null;
  /** Registrations needing approval: why the person wants to join (issue #15). */
  reason?: string | null;
  /** Registrations by invite: the invite link's code. */
  invite?: string | null;
}

/** A sign-up that waits for an admin's approval: no session until then. */
export interface PendingSignUpResult {
  pending: true;
  user: SessionUser;
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

export interface AccountSignUp {
  /**
   * Sign-up from the web: the first account anyone can log in with becomes admin. With a
   * client IP (every web request), the IP's sign-up budget is charged.
   */
  signUp(
    input: SignUpInput,
    meta?: { clientIp: string },
  ): Promise<Result<SignedIn | PendingSignUpResult, Refusal>>;
  /** Operators (CLI, admin API): explicit admin flag, no session. */
  createUser(
    input: CreateUserInput,
  ): Promise<Result<{ user: SessionUser; generatedPassword: string | null }, Refusal>>;
}

/** Serialises "is this the first account?" across replicas (a transaction-scoped lock). */
const FIRST_ADMIN_LOCK = 0x53574144; // "SWAD"

const handleTaken = (handle: string) =>
  refuse('HANDLE_TAKEN', `The handle "${handle}" is taken.`, { field: 'handle' });

export function signUpService(deps: {
  db: Db;
  clock: AuthClock;
  sessions: SessionService;
  signUpLimits?: SignUpLimits;
  limits: AuthLimits;
}): AccountSignUp {
  const { prisma } = deps.db;
  const { sessions, limits } = deps;
  const signUpsPerHour = (deps.signUpLimits ?? DEFAULT_SIGN_UP_LIMITS).perIp.perHour;
  const signUpsPerIp = { points: signUpsPerHour, windowMs: 3_600_000 };

  async function throttleSignUp(ip: string): Promise<Result<void, Refusal>> {
    const taken = await limits.take(SIGN_UP_IP_LIMIT, ip, signUpsPerIp);
    if (taken.ok) return ok(undefined);
    const minutes = Math.ceil(taken.retryAfterSec / 60);
    return refuse(
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
    charge?: () => Promise<Result<void, Refusal>>;
    /** Sign-ups from the web obey the node's registrations mode (operators' accounts do not). */
    registration?: { reason?: string | null; invite?: string | null };
  }): Promise<Result<SessionUser & { pending: boolean }, Refusal>> {
    const handle = parseLocalHandle(input.handle);
    if (!handle.ok) return invalid('handle', `Handle: ${handle.reason}.`);
    const displayName = checkDisplayName(input.displayName, handle.value);
    if (!displayName.ok) return displayName;
    const badPassword = checkPassword(input.password);
    if (!badPassword.ok) return badPassword;
    let key: KeyInput | null = null;
    if (input.key) {
      const checked = await checkKey(input.key);
      if (!checked.ok) return checked;
      key = checked.value;
    }
    // A deleted account's handle stays out of use for a while (docs/protocol.md "Deleting an account").
    const reserved = await prisma.accountTombstone.findFirst({
      where: { handle: handle.value, reservedUntil: { gt: deps.clock.now() } },
      select: { handle: true },
    });
    if (reserved) return handleTaken(handle.value);
    const charged = await input.charge?.();
    if (charged && !charged.ok) return charged;
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
        let pending = false;
        let signupReason: string | null = null;
        if (input.registration) {
          const admission = await admitSignUp(tx, {
            isFirst: isAdmin,
            invite: input.registration.invite,
            reason: input.registration.reason,
            now: deps.clock.now(),
          });
          if (!admission.ok) throw new RefusalError(admission.reason);
          pending = admission.value.pending;
          signupReason = admission.value.reason;
        }
        return tx.user.create({
          data: {
            handle: handle.value,
            displayName: displayName.value,
            passwordHash,
            isAdmin,
            pendingApproval: pending,
            signupReason,
            did: key?.did ?? null,
            publicKey: key?.publicKey ?? null,
            encryptedKeyBackup: key?.encryptedBackup ?? null,
            createdAt: deps.clock.now(),
          },
          select: { ...SESSION_USER_SELECT, pendingApproval: true },
        });
      });
      return ok({ ...toSessionUser(user), pending: user.pendingApproval });
    } catch (error) {
      if (error instanceof RefusalError) return err(error.refusal);
      const which = uniqueViolation(error);
      if (which === 'did') return keyTaken();
      if (which === 'handle') return handleTaken(handle.value);
      throw error;
    }
  }

  return {
    async signUp(input, meta) {
      const user = await insertUser({
        ...input,
        isAdmin: 'if-first',
        charge: meta ? () => throttleSignUp(meta.clientIp) : undefined,
        registration: { reason: input.reason, invite: input.invite },
      });
      if (!user.ok) return user;
      const { pending, ...sessionUser } = user.value;
      if (pending) return ok({ pending: true as const, user: sessionUser });
      const session = await sessions.create(user.value.id);
      return ok({ ...session, user: sessionUser });
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
      const { pending: _pending, ...created } = user.value;
      return ok({ user: created, generatedPassword });
    },
  };
}
