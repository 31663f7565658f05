import type { Db } from '@swarm/db';
import {
  createAccountService,
  type AccountService,
  type LoginLimits,
  type SignUpLimits,
} from './account.service.ts';
import { createSessionService, type SessionService } from './session.service.ts';
import type { AuthClock, AuthLimits } from './types.ts';

/**
 * Accounts and sessions of one node, built once per process by the entry point (the web app's
 * hook, the gateway's `main`) next to the node context. Login and sign-up throttles take from
 * `limits`: the node context's, shared by its processes (docs/decisions.md, "auth takes its
 * limits as a port").
 */
export interface AuthServices {
  sessions: SessionService;
  accounts: AccountService;
}

export function createAuthServices(deps: {
  db: Db;
  clock: AuthClock;
  loginLimits?: LoginLimits;
  signUpLimits?: SignUpLimits;
  limits: AuthLimits;
}): AuthServices {
  const sessions = createSessionService({ db: deps.db, clock: deps.clock });
  const accounts = createAccountService({ ...deps, sessions });
  return { sessions, accounts };
}

/**
 * The auth services of a node context (anything with its database, clock, shared limits and
 * sign-up budget): what the web app's hook and the gateway's `main` build, once each.
 */
export function authServicesOf(node: {
  db: Db;
  clock: AuthClock;
  limits: AuthLimits;
  config: { signUpLimitPerHour: number };
}): AuthServices {
  return createAuthServices({
    db: node.db,
    clock: node.clock,
    limits: node.limits,
    signUpLimits: { perIp: { perHour: node.config.signUpLimitPerHour } },
  });
}
