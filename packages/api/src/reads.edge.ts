import type { Viewer } from '@swarm/domain';
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
