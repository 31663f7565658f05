import type { NodeContext, StreamNotification, StreamPost } from '@swarm/domain';
import type { StreamRenderers } from './hub.ts';

/** PROVISIONAL until the Status and Notification entities are merged (h-statuses, h-accounts). */
export function createStreamRenderers(node: NodeContext): StreamRenderers {
  void node;
  return {
    async statuses(posts: readonly StreamPost[]) {
      return new Map(posts.map((p) => [p.id, JSON.stringify({ id: p.apiId })]));
    },
    async notifications(notes: readonly StreamNotification[]) {
      return new Map(notes.map((n) => [n.id, JSON.stringify({ id: n.apiId, type: n.type })]));
    },
  };
}
