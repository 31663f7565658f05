import type { createCaller } from '@swarm/api';
import type { AuthServices, SessionUser, ValidatedSession } from '@swarm/auth';
import type { NodeContext } from '@swarm/domain';

declare global {
  namespace App {
    interface Locals {
      node: NodeContext;
      /** Accounts and sessions (one per process: the login throttle lives in it). */
      auth: AuthServices;
      /** The request's session from the `swarm_session` cookie, or null when signed out. */
      session: ValidatedSession | null;
      /** `session.user`, for templates and guards. */
      user: SessionUser | null;
      /** tRPC caller for server loads: the same procedures the browser calls, in-process. */
      api: ReturnType<typeof createCaller>;
    }
    interface Error {
      message: string;
      code?: string;
    }
  }
}

export {};
