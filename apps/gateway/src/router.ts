import { OpenAPIHono } from '@hono/zod-openapi';
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
