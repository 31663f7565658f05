import type { Db } from '@swarm/db';
import type { Limits } from '@swarm/domain';
import {
  createAccountService,
  type AccountService,
  type LoginLimits,
  type SignUpLimits,
} from './account.service.ts';
import { createSessionService, type SessionService } from './session.service.ts';
import type { AuthClock } from './types.ts';

/**
 * Accounts and sessions of one node. Login and sign-up throttles take from `limits` (the node
 * context's, shared by its processes); without it, from buckets in this object's memory.
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
  limits?: Limits;
}): AuthServices {
  const sessions = createSessionService({ db: deps.db, clock: deps.clock });
  const accounts = createAccountService({ ...deps, sessions });
  return { sessions, accounts };
}
