import type { AdminPrincipal } from '@swarm/domain';
import type { GatewayEnv } from '../router.ts';

/** What the security middleware leaves in the context for the handlers after it. */
export interface SecurityVariables {
  /** The verified sender of a node-signed request; undefined when the request was unsigned. */
  sourceDomain?: string;
  /** `origin` when the sender signed the origin profile's way (body or reply header signature). */
  profile?: 'origin';
  /** The exact body bytes received (what the signature covers). */
  rawBody?: Uint8Array;
  /** The body parsed once from `rawBody`. */
  jsonBody?: unknown;
  /** Body cap of the route, in bytes. */
  bodyCap?: number;
  /** Who passed `requireAdmin()`. */
  admin?: AdminPrincipal;
}

export type SecurityEnv = { Variables: GatewayEnv['Variables'] & SecurityVariables };

/** Methods that carry a body and change state; GET/HEAD/OPTIONS pass the guards untouched. */
export function isWriteMethod(method: string): boolean {
  return method !== 'GET' && method !== 'HEAD' && method !== 'OPTIONS';
}
