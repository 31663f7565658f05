import type { Db } from '@swarm/db';
import {
  createAccountService,
  type AccountService,
  type LoginLimits,
  type SignUpLimits,
} from './account.service.ts';
import { createClientAppService, type ClientAppService } from './client-apps.ts';
import { createOAuthService, type OAuthService } from './client-oauth.ts';
import { createClientTokenService, type ClientTokenService } from './client-tokens.ts';
import { createDeveloperAppService, type DeveloperAppService } from './developer-apps.ts';
import { createSessionService, type SessionService } from './session.service.ts';
import type { AuthClock, AuthLimits } from './types.ts';

/**
 * Accounts and sessions of one node, built by its entry point (`authServicesOf`) and handed to
 * what serves people: the gateway's `main` builds them once for the gateway, the embedded web app
 * and housekeeping. Login and sign-up throttles take from `limits`: the node context's, shared by
 * its processes (docs/decisions.md, "auth takes its limits as a port").
 */
export interface AuthServices {
  sessions: SessionService;
  accounts: AccountService;
  /** Apps registered through the client API (docs/clients.md). */
  clientApps: ClientAppService;
  /** Their authorization server: consent, codes, tokens (docs/security.md, "Apps and tokens"). */
  oauth: OAuthService;
  /** What an app's bearer token opens, and the apps a person authorized. */
  clientTokens: ClientTokenService;
  /** Apps and tokens a person makes for their own account (Settings → Development). */
  developerApps: DeveloperAppService;
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
  const clientApps = createClientAppService({ db: deps.db, limits: deps.limits });
  const oauth = createOAuthService({ db: deps.db, clock: deps.clock });
  const clientTokens = createClientTokenService({ db: deps.db, clock: deps.clock });
  const developerApps = createDeveloperAppService({ db: deps.db, clock: deps.clock });
  return { sessions, accounts, clientApps, oauth, clientTokens, developerApps };
}

/** What `authServicesOf` needs of a node context. */
export interface AuthNode {
  db: Db;
  clock: AuthClock;
  limits: AuthLimits;
  config: { signUpLimitPerHour: number };
}

/**
 * The auth services over a node context's database, clock, shared limits and sign-up budget.
 * They hold no state of their own (throttles count in `limits`), so services built twice over
 * one context act as one.
 */
export function authServicesOf(node: AuthNode): AuthServices {
  return createAuthServices({
    db: node.db,
    clock: node.clock,
    limits: node.limits,
    signUpLimits: { perIp: { perHour: node.config.signUpLimitPerHour } },
  });
}
