import {
  SWARM_PATHS,
  parsePeerSinglePost,
  parseSwarmPostId,
  peerSwarmUserResponseSchema,
} from '@swarm/contract';
import { z } from 'zod';
import type { Db } from '@swarm/db';
import type { Clock } from '../clock.ts';
import type { Logger } from '../logger.ts';
import {
  claimDuePollsSql,
  dropUnfollowedPollsSql,
  seedFollowedPollsSql,
} from '../persistence/remote-posts.sql.ts';
import { mapBounded } from '../registry/bounded.ts';
import { parseCapabilities } from '../registry/capabilities.ts';
import type { RegistryService } from '../registry/index.ts';
import type { PeerReads, RemoteReadMetrics, WireViews } from './poller-ports.ts';
import {
  POLL_POLICY,
  delayAfterFailure,
  intervalAfterSuccess,
  type PollPolicy,
} from './poller-policy.ts';
import { STORE_BATCH_MAX, type RemotePostStore } from './remote-post-store.ts';
import type { RemoteProfileStore } from './remote-profile-store.ts';

/**
 * The poller (docs/architecture.md "Stored remote content"): the posts of every remote person
 * someone here follows are read from their node in the background and stored, so that pages
 * read only this database. Peers that cannot push (origin-profile nodes, or ours while a push
 * was lost) are covered the same way. Rows are claimed (`claimed_until`, FOR UPDATE SKIP
 * LOCKED), so several gateway replicas share the work without reading anyone twice.
 * A person's reposts of posts not held here are kept once the reposted post is: up to
 * `originalsPerRead` of them are read from their own node (never from the reposter's) right
 * after the person's read, in the same job.
 */
export interface RemotePoller {
  /**
   * Rows for remote people someone here follows who have none (due at once: the backfill of an
   * upgraded node and of follows made by any other path), and none for people nobody follows.
   */
  reconcile(): Promise<{ added: number; dropped: number }>;
  /** One batch: claims due rows, reads each person's newest posts, stores them. */
  pollDue(): Promise<PollReport>;
}

export interface PollReport {
  claimed: number;
  ok: number;
  failed: number;
  /** Not asked: the person's node is blocked here. */
  skipped: number;
  /** New copies stored. */
  created: number;
}

export interface PollerOptions {
  /** Rows claimed per batch. */
  batchSize: number;
  /** Reads in flight at once. */
  concurrency: number;
  /** Posts asked per read (`?limit=`). */
  postsPerRead: number;
  /** How long a claim holds if the replica that took it dies mid-batch. */
  claimMs: number;
  /** Reposted posts read from their own node per person read, at most. */
  originalsPerRead: number;
  policy: PollPolicy;
}

export const POLLER_DEFAULTS: PollerOptions = {
  batchSize: 25,
  concurrency: 4,
  postsPerRead: 20,
  claimMs: 2 * 60_000,
  originalsPerRead: 3,
  policy: POLL_POLICY,
};

export function createRemotePoller(deps: {
  db: Db;
  clock: Clock;
  logger: Logger;
  reads: PeerReads;
  /** Keeps the whole answer: the person's profile (pages read it) and their posts. */
  profiles: Pick<RemoteProfileStore, 'store'>;
  /** Reposted posts read from their own node. */
  store: Pick<RemotePostStore, 'store'>;
  views: Pick<WireViews, 'singlePost'>;
  registry: Pick<RegistryService, 'blockedDomains'>;
  metrics?: Pick<RemoteReadMetrics, 'observeRemoteRead'>;
  options?: Partial<PollerOptions>;
}): RemotePoller {
  const { db, clock, logger, reads, profiles, store, views, registry, metrics } = deps;
  const options = { ...POLLER_DEFAULTS, ...deps.options };
  const { policy } = options;
  const prisma = db.prisma;

  type Row = {
    remoteActorId: string;
    intervalMs: number;
    newestPostAt: Date | null;
    lastPolledAt: Date | null;
    failures: number;
    remoteActor: { handle: string; nodeDomain: string };
  };

  async function failed(row: Row, error: string): Promise<'failed'> {
    const failures = row.failures + 1;
    const wait = delayAfterFailure(failures, policy);
    await prisma.remoteAuthorPoll.updateMany({
      where: { remoteActorId: row.remoteActorId },
      data: { failures, nextPollAt: new Date(clock.now().getTime() + wait), claimedUntil: null },
    });
    logger.debug(
      { peer: row.remoteActor.nodeDomain, handle: row.remoteActor.handle, failures, error },
      'poll failed',
    );
    return 'failed';
  }

  /**
   * Reads reposted posts from their own nodes and stores them; true when one was stored. A post
   * that cannot be read now is asked again at the reposter's next read, if still listed.
   */
  async function fetchOriginals(ids: readonly string[], blocked: ReadonlySet<string>) {
    let stored = false;
    for (const id of ids.slice(0, options.originalsPerRead)) {
      const ref = parseSwarmPostId(id);
      if (!ref.ok || blocked.has(ref.value.domain)) continue;
      const { domain, postId } = ref.value;
      const read = await reads.read(domain, SWARM_PATHS.post(postId), z.unknown());
      if (!read.ok) continue;
      const post = parsePeerSinglePost(read.value, domain);
      // Its own node speaks for it: the author must be of that node (the store checks), and a
      // repost is no post to show in another's repost.
      if (!post.ok || post.value.id !== postId || post.value.repostOfId) continue;
      const view = views.singlePost(post.value, domain);
      if (!view) continue;
      const outcome = await store.store([{ view }], 'poll');
      stored ||= outcome.created.length + outcome.updated > 0;
    }
    return stored;
  }

  async function pollOne(
    row: Row,
    pushes: boolean,
    blocked: ReadonlySet<string>,
  ): Promise<{ result: 'ok' | 'failed'; created: number }> {
    const { handle, nodeDomain: domain } = row.remoteActor;
    const read = await reads.read(
      domain,
      SWARM_PATHS.userEntries(handle, options.postsPerRead),
      peerSwarmUserResponseSchema,
    );
    if (!read.ok) return { result: await failed(row, read.error), created: 0 };
    try {
      const answer = { ...read.value, posts: read.value.posts.slice(0, STORE_BATCH_MAX) };
      let outcome = await profiles.store(domain, handle, answer, 'poll');
      if (
        outcome.missingOriginals.length > 0 &&
        (await fetchOriginals(outcome.missingOriginals, blocked))
      ) {
        // The reposts of what was just stored find it now.
        const again = await profiles.store(domain, handle, answer, 'poll');
        outcome = { ...again, created: [...outcome.created, ...again.created] };
      }
      const newest = Math.max(
        outcome.newestPostAt?.getTime() ?? 0,
        row.newestPostAt?.getTime() ?? 0,
      );
      const newestPostAt = newest > 0 ? new Date(newest) : null;
      const now = clock.now();
      // The first read is the backfill: what it finds is not a sign of a busy author.
      const newPosts = row.lastPolledAt ? outcome.created.length : 0;
      const intervalMs = intervalAfterSuccess(
        // The backfill says nothing of lost pushes either.
        {
          intervalMs: row.intervalMs,
          newPosts,
          newestPostAt,
          now,
          pushes: pushes && !!row.lastPolledAt,
        },
        policy,
      );
      await prisma.remoteAuthorPoll.updateMany({
        where: { remoteActorId: row.remoteActorId },
        data: {
          lastPolledAt: now,
          nextPollAt: new Date(now.getTime() + intervalMs),
          intervalMs,
          newestPostAt,
          failures: 0,
          claimedUntil: null,
        },
      });
      return { result: 'ok', created: outcome.created.length };
    } catch (err) {
      // A store that failed (the database) is retried like a node that did not answer.
      logger.warn({ err, peer: domain, handle }, 'storing polled posts failed');
      return {
        result: await failed(row, err instanceof Error ? err.message : String(err)),
        created: 0,
      };
    }
  }

  /** The nodes, among those of these people, that push their users' posts to followers' nodes. */
  async function pushingDomains(remoteActorIds: string[]): Promise<Set<string>> {
    const nodes = await prisma.swarmNode.findMany({
      where: {
        domain: {
          in: (
            await prisma.remoteActor.findMany({
              where: { id: { in: remoteActorIds } },
              select: { nodeDomain: true },
              distinct: ['nodeDomain'],
            })
          ).map((a) => a.nodeDomain),
        },
      },
      select: { domain: true, capabilities: true, protocolProfile: true },
    });
    return new Set(
      nodes
        .filter(
          (n) =>
            n.protocolProfile !== 'origin' && parseCapabilities(n.capabilities).includes('posts'),
        )
        .map((n) => n.domain),
    );
  }

  return {
    async reconcile() {
      const added = await prisma.$executeRaw(seedFollowedPollsSql(clock.now(), policy.initialMs));
      const dropped = await prisma.$executeRaw(dropUnfollowedPollsSql());
      if (added > 0 || dropped > 0) {
        logger.info({ added, dropped }, 'poller: schedule reconciled with the follow graph');
      }
      return { added, dropped };
    },

    async pollDue() {
      const report: PollReport = { claimed: 0, ok: 0, failed: 0, skipped: 0, created: 0 };
      const now = clock.now();
      const claimed = await prisma.$queryRaw<{ remoteActorId: string }[]>(
        claimDuePollsSql(now, new Date(now.getTime() + options.claimMs), options.batchSize),
      );
      report.claimed = claimed.length;
      if (claimed.length === 0) return report;
      const [rows, blocked, pushing] = await Promise.all([
        prisma.remoteAuthorPoll.findMany({
          where: { remoteActorId: { in: claimed.map((c) => c.remoteActorId) } },
          orderBy: { nextPollAt: 'asc' },
          select: {
            remoteActorId: true,
            intervalMs: true,
            newestPostAt: true,
            lastPolledAt: true,
            failures: true,
            remoteActor: { select: { handle: true, nodeDomain: true } },
          },
        }),
        registry.blockedDomains(),
        pushingDomains(claimed.map((c) => c.remoteActorId)),
      ]);
      await mapBounded(rows, options.concurrency, async (row) => {
        if (blocked.has(row.remoteActor.nodeDomain)) {
          // Blocked nodes are not asked; the row waits the longest interval and looks again.
          await prisma.remoteAuthorPoll.updateMany({
            where: { remoteActorId: row.remoteActorId },
            data: { nextPollAt: new Date(now.getTime() + policy.maxMs), claimedUntil: null },
          });
          report.skipped += 1;
          metrics?.observeRemoteRead('poll', 'skipped');
          return;
        }
        const outcome = await pollOne(row, pushing.has(row.remoteActor.nodeDomain), blocked);
        report[outcome.result] += 1;
        report.created += outcome.created;
        metrics?.observeRemoteRead('poll', outcome.result);
      });
      if (report.created > 0 || report.failed > 0) {
        logger.info({ ...report }, 'poller: batch done');
      }
      return report;
    },
  };
}
