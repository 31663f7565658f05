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
 * Accounts and sessions of one node, built once per node context (`authServicesOf`), which the
 * entry points (the web app's hook, the gateway's `main`) share in embedded mode. Login and sign-up throttles take from
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

/** What `authServicesOf` needs of a node context. */
export interface AuthNode {
  db: Db;
  clock: AuthClock;
  limits: AuthLimits;
  config: { signUpLimitPerHour: number };
}

/**
 * Where a node context keeps its auth services: a global symbol, because the embedded web app's
 * bundle has its own copy of this module (as `shareNodeContext` in @swarm/domain says).
 */
const BUILT = Symbol.for('swarm-node.auth-services');

/**
 * The auth services of a node context (its database, clock, shared limits and sign-up budget),
 * built once per context: in embedded mode the gateway's `main` and the web app's hook, each
 * asking for them, get the same services over the one shared context. A copy of the context
 * (`{ ...node, clock }`) gets its own.
 */
export function authServicesOf(node: AuthNode): AuthServices {
  const holder = node as AuthNode & { [BUILT]?: AuthServices };
  const built = holder[BUILT];
  if (built) return built;
  const services = createAuthServices({
    db: node.db,
    clock: node.clock,
    limits: node.limits,
    signUpLimits: { perIp: { perHour: node.config.signUpLimitPerHour } },
  });
  // Not enumerable, so that a spread copy of the context does not carry it.
  Object.defineProperty(node, BUILT, { value: services, enumerable: false });
  return services;
}
