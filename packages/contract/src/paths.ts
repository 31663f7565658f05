import type { InteractionKind } from './interaction-schemas.ts';

/** Paths of the spec's swarm endpoints, so clients and the gateway cannot drift apart. */
export const SWARM_PATHS = {
  discovery: '/.well-known/node-swarm',
  info: '/api/swarm/info',
  nodes: '/api/swarm/nodes',
  announce: '/api/swarm/announce',
  gossip: '/api/swarm/gossip',
  timeline: '/api/swarm/timeline',
  replies: '/api/swarm/replies',
  user: (handle: string) => `/api/swarm/users/${encodeURIComponent(handle)}`,
  /** A user's newest posts and reposts, for readers that keep both (`peerSwarmUserResponseSchema`). */
  userEntries: (handle: string, limit: number) =>
    `/api/swarm/users/${encodeURIComponent(handle)}?limit=${limit}&reposts=true`,
  followers: (handle: string) => `/api/swarm/users/${encodeURIComponent(handle)}/followers`,
  following: (handle: string) => `/api/swarm/users/${encodeURIComponent(handle)}/following`,
  post: (postId: string) => `/api/swarm/posts/${encodeURIComponent(postId)}`,
  interaction: (kind: InteractionKind | 'unrepost') => `/api/swarm/interactions/${kind}`,
  /** Direct messages (extra endpoints, capability `messages`). */
  messages: '/api/swarm/messages',
  messageReceipts: '/api/swarm/messages/receipts',
  /** Forwarded moderation reports (extra endpoint, capability `reports`). */
  reports: '/api/swarm/reports',
  /** Account ownership (extra endpoints, capabilities `deletions` and `moves`). */
  deletions: '/api/swarm/deletions',
  moves: '/api/swarm/moves',
  /** New posts pushed to the nodes of the author's followers (capability `posts`; the origin's too). */
  inbox: '/api/swarm/inbox',
  /** The state of an app delegation a user of this node signed (capability `delegations`). */
  delegation: (id: string) => `/api/swarm/delegations/${encodeURIComponent(id)}`,
} as const;
