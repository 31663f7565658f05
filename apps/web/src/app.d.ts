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
      /** X-Request-Id of this request (the caller's when well-formed, else generated). */
      requestId: string;
      /** The client's address (socket address when the proxy header is absent). */
      clientAddress: string;
      /** Set by handleError when a failure was the database being unreachable. */
      databaseUnavailable?: boolean;
    }
    interface Error {
      message: string;
      code?: string;
    }
  }
}

export {};
