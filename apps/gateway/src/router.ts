import { OpenAPIHono, type z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { NodeContext } from '@swarm/domain';
import { errorResponse } from './errors.ts';

export type GatewayEnv = { Variables: { node: NodeContext; requestId: string } };

/** Every router answers invalid input the same way: 400 INVALID_REQUEST with zod's issues. */
export function createRouter() {
  return new OpenAPIHono<GatewayEnv>({
    defaultHook: (result, c) => {
      if (!result.success) {
        return errorResponse(
          c,
          'INVALID_REQUEST',
          'The request is not valid.',
          result.error.issues,
        );
      }
    },
  });
}

/** An OpenAPI request or response body: `schema` as JSON, described. */
export const jsonContent = <S extends z.ZodType>(schema: S, description: string) => ({
  description,
  content: { 'application/json': { schema } },
});

/** `origin` when the verified sender signed the origin profile's way (see node-signature.ts). */
export function verifiedProfile(c: Context): 'origin' | 'swarm' {
  return (c.var as Record<string, unknown>)['profile'] === 'origin' ? 'origin' : 'swarm';
}

/** The sender the node-signature middleware verified; undefined for an unsigned request. */
export function verifiedSourceDomain(c: Context): string | undefined {
  const value = (c.var as Record<string, unknown>)['sourceDomain'];
  return typeof value === 'string' ? value : undefined;
}
