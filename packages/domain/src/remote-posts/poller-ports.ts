import type { ProfilePost, SinglePost, TimelinePost } from '@swarm/contract';
import type { z } from 'zod';
import type { ActorView, PostView } from '../views/index.ts';

// What the poller and the crawler are handed (docs/architecture.md: workers receive the
// services they use). boot.ts fills them with the node's peer reader (peer client, time budget,
// per-peer breaker) and the wire-to-view mappers pages use, so that a stored copy is exactly
// what a page built from a peer's answer showed.

/** A GET to a peer through the node's reader; never throws for peer behaviour. */
export interface PeerReads {
  read<S extends z.ZodType>(
    domain: string,
    path: string,
    schema: S,
  ): Promise<{ ok: true; value: z.output<S> } | { ok: false; error: string; skipped: boolean }>;
}

/** Peers' wire shapes as views (feeds/post-views.ts, bound to this node's domain). */
export interface WireViews {
  actor(input: {
    handle: string;
    domain: string;
    displayName: string;
    avatarUrl: string | null;
  }): ActorView;
  profilePost(post: ProfilePost, author: ActorView, domain: string): PostView;
  timelinePost(post: TimelinePost, domain: string): PostView | null;
  /** `GET /api/swarm/posts/[id]` of `domain`. */
  singlePost(post: SinglePost, domain: string): PostView | null;
}

/** Counts of the background reads (ops/metrics.ts). */
export interface RemoteReadMetrics {
  observeRemoteRead(job: 'poll' | 'crawl', result: 'ok' | 'failed' | 'skipped'): void;
  observeRemoteCopiesDeleted(reason: 'expired' | 'budget', count: number): void;
}
