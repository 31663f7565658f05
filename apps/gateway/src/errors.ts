import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { ERROR_STATUS, errorBody, type ErrorCode } from '@swarm/contract';

/** The one error shape of DESIGN.md §3, with the status its code stands for. */
export function errorResponse(c: Context, code: ErrorCode, error: string, details?: unknown) {
  return c.json(errorBody(code, error, details), ERROR_STATUS[code] as ContentfulStatusCode);
}
