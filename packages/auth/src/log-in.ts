import { ok, parseLocalHandle, refuse, type Refusal } from '@swarm/contract';
import type { Result } from '@swarm/contract';
import type { Db } from '@swarm/db';
import { PASSWORD_MAX_LENGTH, randomPassword, hashPassword, verifyPassword } from './password.ts';
import { SESSION_USER_SELECT, toSessionUser, type SessionService } from './session.service.ts';
import type { SignedIn } from './sign-up.ts';
import type { AuthLimits, KeyBackup } from './types.ts';

// Logging in and out, and the login throttle that every password check of an account draws on.

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

/** Names of the login limits in the node's shared `Limits` (docs/deployment.md "Replicas"). */
export const LOGIN_HANDLE_LIMIT = 'login-handle';
export const LOGIN_IP_LIMIT = 'login-ip';

export interface LoggedIn extends SignedIn {
  keyBackup: KeyBackup | null;
}

export interface AccountLogIn {
  logIn(
    input: { handle: string; password: string },
    meta: { clientIp: string },
  ): Promise<Result<LoggedIn, Refusal>>;
  logOut(sessionId: string): Promise<void>;
}

/** The login budgets: logins and every other check of an account's password spend from them. */
export interface LoginThrottle {
  /** One attempt from the IP's bucket (given an IP), then the handle's; the refusal once spent. */
  take(keys: { ip?: string; handle: string }): Promise<Result<void, Refusal>>;
  /** The owner is in: earlier failures on this handle stop counting (the IP budget stays). */
  reset(handle: string): Promise<void>;
}

const rule = (limit: { burst: number; perMinute: number }) => ({
  points: limit.perMinute,
  windowMs: 60_000,
  burst: limit.burst,
});

export function loginThrottle(limits: AuthLimits, loginLimits: LoginLimits): LoginThrottle {
  const perHandle = rule(loginLimits.perHandle);
  const perIp = rule(loginLimits.perIp);
  return {
    async take(keys) {
      const ip =
        keys.ip === undefined
          ? { ok: true as const }
          : await limits.take(LOGIN_IP_LIMIT, keys.ip, perIp);
      const handle = ip.ok ? await limits.take(LOGIN_HANDLE_LIMIT, keys.handle, perHandle) : ip;
      if (handle.ok) return ok(undefined);
      return refuse(
        'RATE_LIMITED',
        `Too many login attempts; try again in ${handle.retryAfterSec} s.`,
        { details: { retryAfterSec: handle.retryAfterSec } },
      );
    },
    reset: (handle) => limits.reset(LOGIN_HANDLE_LIMIT, handle),
  };
}

export function logInService(deps: {
  db: Db;
  sessions: SessionService;
  throttle: LoginThrottle;
  /** The user's key backup, handed to the browser that logs in. */
  keyBackup(userId: string): Promise<KeyBackup | null>;
}): AccountLogIn {
  const { prisma } = deps.db;
  const { sessions, throttle } = deps;

  // A real argon2id hash to verify against when the handle is unknown: same work, same timing.
  let dummyHash: Promise<string> | undefined;
  const dummy = () => (dummyHash ??= hashPassword(randomPassword()));

  return {
    async logIn(input, meta) {
      const typed = typeof input.handle === 'string' ? input.handle.trim().toLowerCase() : '';
      const handleKey = typed.slice(0, 64);
      const throttled = await throttle.take({ ip: meta.clientIp, handle: handleKey });
      if (!throttled.ok) return throttled;
      const wrong = refuse('UNAUTHORIZED', WRONG_CREDENTIALS_MESSAGE, { field: 'password' });
      const password = typeof input.password === 'string' ? input.password : '';
      const handle = parseLocalHandle(typed);
      const user = handle.ok
        ? await prisma.user.findUnique({
            where: { handle: handle.value },
            select: {
              ...SESSION_USER_SELECT,
              passwordHash: true,
              suspendedAt: true,
              pendingApproval: true,
            },
          })
        : null;
      if (!user || password.length > PASSWORD_MAX_LENGTH) {
        await verifyPassword(await dummy(), password.slice(0, PASSWORD_MAX_LENGTH));
        return wrong;
      }
      if (!(await verifyPassword(user.passwordHash, password))) return wrong;
      // Told only to whoever knows the password (issue #15).
      if (user.suspendedAt) {
        return refuse('FORBIDDEN', 'This account is suspended by the node’s moderators.');
      }
      if (user.pendingApproval) {
        return refuse(
          'FORBIDDEN',
          'This account is waiting for a moderator’s approval; try again later.',
        );
      }
      await throttle.reset(handleKey);
      const session = await sessions.create(user.id);
      return ok({
        ...session,
        user: toSessionUser(user),
        keyBackup: await deps.keyBackup(user.id),
      });
    },

    logOut(sessionId) {
      return sessions.invalidate(sessionId);
    },
  };
}
