import type { PeerRepostEntry, SwarmUserResponse } from '@swarm/contract';
import type { Db } from '@swarm/db';
import type { Clock } from '../clock.ts';
import { actorView, profilePostToView, viewPostRef, viewUrl } from '../feeds/post-views.ts';
import { upsertRemoteActor } from '../interactions/interaction-effects.ts';
import {
  STORE_BATCH_MAX,
  type RemotePostStore,
  type StoredPostInput,
  type StoreSource,
} from './remote-post-store.ts';

/**
 * What a node answered for one of its users (`GET /api/swarm/users/{handle}`), kept: the actor
 * (display fields, did pinned on first sight), the rest of the profile, and their newest posts
 * through the post store. The poller writes it for people someone here follows; a profile page
 * of someone else writes it after its on-demand read. Profile pages then read it from here.
 * Nodes that list their users' reposts (the origin's; ours, asked with `reposts=true`) have them
 * kept too, after the posts (a repost of the user's own post finds it stored); a stored repost
 * the node no longer lists among the entries it answered (newer than the oldest of them) was
 * undone there and goes.
 */
export interface RemoteProfileStore {
  store(
    domain: string,
    askedHandle: string,
    answer: SwarmUserResponse & { reposts?: readonly PeerRepostEntry[] },
    source: Extract<StoreSource, 'poll' | 'read'>,
  ): Promise<StoredProfile>;
}

export interface StoredProfile {
  remoteActorId: string;
  actorUrl: string;
  /** The handle as stored: the node's spelling when it is the one asked for. */
  handle: string;
  /** Copies new with this answer. */
  created: string[];
  /** Newest post date in the answer (the poller's interval follows it). */
  newestPostAt: Date | null;
  /** Posts its reposts repeat that are not held here (view ids): not kept, to fetch. */
  missingOriginals: string[];
}

export function createRemoteProfileStore(deps: {
  db: Db;
  clock: Clock;
  self: string;
  posts: Pick<RemotePostStore, 'store'>;
}): RemoteProfileStore {
  const { db, clock, self, posts } = deps;
  const prisma = db.prisma;

  return {
    async store(domain, askedHandle, answer, source) {
      const { profile } = answer;
      // Peers may differ in case: keep the node's spelling only when it names the one asked.
      const handle =
        profile.handle.toLowerCase() === askedHandle.toLowerCase() ? profile.handle : askedHandle;
      const now = clock.now();
      const actor = await upsertRemoteActor(
        prisma,
        {
          handle,
          domain,
          displayName: profile.displayName,
          avatarUrl: profile.avatarUrl,
          bio: profile.bio,
        },
        { now, didToPin: profile.did, fetched: true },
      );
      const fields = {
        headerUrl: viewUrl(profile.headerUrl),
        website: viewUrl(profile.website),
        followersCount: profile.followersCount,
        followingCount: profile.followingCount,
        postsCount: profile.postsCount,
        isBot: profile.isBot,
        joinedAt: new Date(profile.createdAt),
        readAt: now,
      };
      await prisma.remoteProfile.upsert({
        where: { remoteActorId: actor.id },
        create: { remoteActorId: actor.id, ...fields },
        update: fields,
      });
      const author = actorView(
        { handle, domain, displayName: profile.displayName, avatarUrl: profile.avatarUrl },
        self,
      );
      const views = answer.posts.map((post) => profilePostToView(post, author, domain, self));
      const outcome = await posts.store(
        views.map((view) => ({ view })),
        source,
      );
      const reposts = (answer.reposts ?? []).slice(0, STORE_BATCH_MAX);
      const repostInputs = reposts.flatMap((entry): StoredPostInput[] => {
        const repostOf = viewPostRef(entry.repostOfId, domain, self);
        if (!repostOf) return [];
        const view = profilePostToView(
          {
            id: entry.id,
            content: '',
            createdAt: entry.createdAt,
            isNsfw: false,
            likesCount: 0,
            repostsCount: 0,
            repliesCount: 0,
            media: [],
            linkPreviewUrl: null,
            linkPreviewTitle: '',
            linkPreviewDescription: '',
            linkPreviewImage: '',
          },
          author,
          domain,
          self,
        );
        return [{ view, repostOf }];
      });
      const reposted = await posts.store(repostInputs, source);
      const times = [...answer.posts, ...reposts].map((entry) => Date.parse(entry.createdAt));
      if (times.length > 0) {
        // Undone on their node: no longer listed, though newer than what the answer reaches.
        const oldest = Math.min(...times, now.getTime());
        await prisma.post.deleteMany({
          where: {
            remoteAuthorId: actor.id,
            apId: { notIn: repostInputs.map((input) => input.view.id) },
            repostOfId: { not: null },
            createdAt: { gte: new Date(oldest) },
          },
        });
      }
      const newest = answer.posts.reduce<number | null>((max, post) => {
        const at = Date.parse(post.createdAt);
        return max === null || at > max ? at : max;
      }, null);
      return {
        remoteActorId: actor.id,
        actorUrl: actor.actorUrl,
        handle,
        created: [...outcome.created, ...reposted.created],
        newestPostAt: newest === null ? null : new Date(Math.min(newest, now.getTime())),
        missingOriginals: reposted.missingOriginals,
      };
    },
  };
}
