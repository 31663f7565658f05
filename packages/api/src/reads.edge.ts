import { TRPCError } from '@trpc/server';
import type { ReadError, ReadErrorCode, Viewer } from '@swarm/domain';
import type { SessionUser } from '@swarm/auth';
import type { ApiContext } from './trpc.ts';

// The reads routers' edge: who is looking, and read failures as tRPC errors (mapped once here).

export function asViewer(user: SessionUser): Viewer {
  return { id: user.id, handle: user.handle, showNsfw: user.showNsfw };
}

/** The signed-in viewer of a read, or null. */
export function viewerOf(ctx: Pick<ApiContext, 'session'>): Viewer | null {
  return ctx.session ? asViewer(ctx.session.user) : null;
}

const TRPC_CODE = {
  INVALID_REQUEST: 'BAD_REQUEST',
  USER_NOT_FOUND: 'NOT_FOUND',
  POST_NOT_FOUND: 'NOT_FOUND',
  PEER_UNAVAILABLE: 'BAD_GATEWAY',
  PEER_TIMEOUT: 'GATEWAY_TIMEOUT',
} as const satisfies Record<ReadErrorCode, TRPCError['code']>;

/** The value of a read, or its failure thrown as the matching TRPCError. */
export function unwrapRead<T>(
  result: { ok: true; value: T } | { ok: false; reason: ReadError },
): T {
  if (result.ok) return result.value;
  throw new TRPCError({ code: TRPC_CODE[result.reason.code], message: result.reason.message });
}
