import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';

/** What a request carries through the node's code, for logs and calls to peers. */
export interface RequestScope {
  requestId: string;
}

/**
 * The current request, propagated through async calls. One per node context (not a module
 * singleton): in embedded mode the bundled web app has its own copy of this module but shares
 * the node context, so both halves and the peer client see the same store.
 */
export interface RequestContext {
  run<T>(scope: RequestScope, fn: () => T): T;
  current(): RequestScope | undefined;
}

export function createRequestContext(): RequestContext {
  const store = new AsyncLocalStorage<RequestScope>();
  return {
    run: (scope, fn) => store.run(scope, fn),
    current: () => store.getStore(),
  };
}

export const REQUEST_ID_HEADER = 'x-request-id';

/** 1 to 128 characters of letters, digits, `_`, `-`, `=`, `.` and `:` (a UUID fits). */
const REQUEST_ID = /^[\w\-=.:]{1,128}$/;

/** The caller's X-Request-Id when it is well-formed, a fresh UUID otherwise. */
export function acceptRequestId(header: string | null | undefined): string {
  return header && REQUEST_ID.test(header) ? header : randomUUID();
}

export function isValidRequestId(value: string): boolean {
  return REQUEST_ID.test(value);
}
