import type { Db } from '@swarm/db';
import { settingsService, type AccountSettings } from './account-settings.ts';
import { credentialsService, type AccountCredentials } from './credentials.ts';
import {
  DEFAULT_LOGIN_LIMITS,
  logInService,
  loginThrottle,
  type AccountLogIn,
  type LoginLimits,
} from './log-in.ts';
import type { SessionService } from './session.service.ts';
import { signUpService, type AccountSignUp, type SignUpLimits } from './sign-up.ts';
import type { AuthClock, AuthLimits } from './types.ts';

// The accounts of a node, one module a use case: making accounts (sign-up.ts), logging in
// (log-in.ts, which owns the login throttle every password check spends from), the password
// and signing key (credentials.ts), the profile settings (account-settings.ts). The input
// rules they share are account-checks.ts's.

export {
  DISPLAY_NAME_MAX_LENGTH,
  KEY_BACKUP_MAX_BYTES,
  uniqueViolation,
  type KeyInput,
} from './account-checks.ts';
export { BIO_MAX_LENGTH, type SettingsInput } from './account-settings.ts';
export {
  DEFAULT_LOGIN_LIMITS,
  LOGIN_HANDLE_LIMIT,
  LOGIN_IP_LIMIT,
  WRONG_CREDENTIALS_MESSAGE,
  type LoggedIn,
  type LoginLimits,
} from './log-in.ts';
export {
  DEFAULT_SIGN_UP_LIMITS,
  SIGN_UP_IP_LIMIT,
  type CreateUserInput,
  type PendingSignUpResult,
  type SignedIn,
  type SignUpInput,
  type SignUpLimits,
} from './sign-up.ts';

export interface AccountService
  extends AccountSignUp, AccountLogIn, AccountCredentials, AccountSettings {}

export function createAccountService(deps: {
  db: Db;
  clock: AuthClock;
  sessions: SessionService;
  loginLimits?: LoginLimits;
  signUpLimits?: SignUpLimits;
  /** Where the buckets live: the node context's shared `limits`, injected by the entry point. */
  limits: AuthLimits;
}): AccountService {
  const throttle = loginThrottle(deps.limits, deps.loginLimits ?? DEFAULT_LOGIN_LIMITS);
  const credentials = credentialsService({ db: deps.db, throttle });
  return {
    ...signUpService(deps),
    ...logInService({ ...deps, throttle, keyBackup: credentials.keyBackup }),
    ...credentials,
    ...settingsService(deps),
  };
}
