import type { Db } from '@swarm/db';
import {
  createAccountService,
  type AccountService,
  type LoginLimits,
  type SignUpLimits,
} from './account.service.ts';
import { createSessionService, type SessionService } from './session.service.ts';
import type { AuthClock } from './types.ts';

/** Accounts and sessions of one node; login and sign-up throttles live in here (one per process). */
export interface AuthServices {
  sessions: SessionService;
  accounts: AccountService;
}

export function createAuthServices(deps: {
  db: Db;
  clock: AuthClock;
  loginLimits?: LoginLimits;
  signUpLimits?: SignUpLimits;
}): AuthServices {
  const sessions = createSessionService({ db: deps.db, clock: deps.clock });
  const accounts = createAccountService({ ...deps, sessions });
  return { sessions, accounts };
}
