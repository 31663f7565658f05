import {
  LIMITS,
  parseHandleAddress,
  parseWith,
  swarmUserQuerySchema,
  type MediaItem,
} from '@swarm/contract';
import type { createCaller } from '@swarm/api';
import type { PostView, ProfileView } from '@swarm/domain';
import { apiErrorResponse, errorJson } from './api-errors';

// The spec's user-facing JSON endpoints (docs/protocol.md "User-facing endpoints"), kept free
// of SvelteKit so tests can call them with a real tRPC caller. The `+server.ts` files only pass
// `locals.api` and the route parameter in. Local (`alice`) and remote (`bob@beta.example`)
// users answer the same shapes; `isSwarm` tells which.

type Api = ReturnType<typeof createCaller>;

interface EndpointOptions {
  /** Where unexpected failures go (the node's logger). */
  log?: (error: unknown) => void;
}

/** The spec's profile fields, plus `address` (what `/@{address}` takes) and `did` when known. */
export function toProfileJson(profile: ProfileView) {
  return {
    handle: profile.actor.handle,
    displayName: profile.actor.displayName,
    bio: profile.bio,
    avatarUrl: profile.actor.avatarUrl ?? '',
    headerUrl: profile.headerUrl ?? '',
    website: profile.website ?? '',
    followersCount: profile.followersCount,
    followingCount: profile.followingCount,
    postsCount: profile.postsCount,
    createdAt: profile.createdAt,
    isBot: profile.isBot,
    nodeDomain: profile.actor.domain,
    address: profile.actor.address,
    ...(profile.did ? { did: profile.did } : {}),
  };
}

/**
 * The spec's "post as listed in a profile response"; remote ids are `swarm:{domain}:{id}`.
 * `author` is an object (the spec leaves this shape open; origin-profile nodes read their peers'
 * `GET /api/users/<h>/posts` and need `author.handle`): `handle` and `nodeDomain` as in the
 * profile, `address` (what `/@{address}` takes), `avatarUrl` only when there is one.
 */
export function toPostJson(post: PostView) {
  const media: MediaItem[] = post.media.map((m) => ({ ...m }));
  return {
    id: post.id,
    content: post.content,
    createdAt: post.createdAt,
    isNsfw: post.isNsfw,
    likesCount: post.likesCount,
    repostsCount: post.repostsCount,
    repliesCount: post.repliesCount,
    media,
    linkPreviewUrl: post.linkPreview?.url ?? null,
    linkPreviewTitle: post.linkPreview?.title ?? '',
    linkPreviewDescription: post.linkPreview?.description ?? '',
    linkPreviewImage: post.linkPreview?.image ?? '',
    author: {
      handle: post.author.handle,
      displayName: post.author.displayName,
      ...(post.author.avatarUrl ? { avatarUrl: post.author.avatarUrl } : {}),
      nodeDomain: post.author.domain,
      address: post.author.address,
    },
    nodeDomain: post.nodeDomain,
  };
}

/** `GET /api/users/[handle]`: `{ profile, isSwarm }`. */
export async function getUserResponse(
  api: Api,
  handle: string,
  options: EndpointOptions = {},
): Promise<Response> {
  try {
    const page = await api.profiles.get({ address: handle, limit: 0 });
    return Response.json({ profile: toProfileJson(page.profile), isSwarm: page.isSwarm });
  } catch (error) {
    return apiErrorResponse(error, options);
  }
}

/** `GET /api/users/[handle]/posts?limit=`: `{ posts, isSwarm }`, the user's own posts, newest first. */
export async function getUserPostsResponse(
  api: Api,
  handle: string,
  query: URLSearchParams,
  options: EndpointOptions = {},
): Promise<Response> {
  const parsed = parseWith(swarmUserQuerySchema, Object.fromEntries(query));
  if (!parsed.ok) {
    return errorJson(
      400,
      'INVALID_REQUEST',
      `limit must be an integer from 0 (at most ${LIMITS.swarmUserPosts.max} are returned).`,
    );
  }
  try {
    const page = await api.profiles.get({ address: handle, limit: parsed.value.limit });
    // Reposts show the reposted post in the UI; this list, like the spec's, holds the user's own.
    const posts = page.posts.filter((p) => p.repostedBy === null).map(toPostJson);
    return Response.json({ posts, isSwarm: page.isSwarm });
  } catch (error) {
    return apiErrorResponse(error, options);
  }
}

/**
 * `POST /api/users/<handle>@<domain>/follow`: the signed-in user follows a remote user; this
 * node delivers the follow at once (or keeps it in the outbox) and answers the delivery state.
 */
export async function followUserResponse(
  api: Api,
  handle: string,
  signedIn: boolean,
  options: EndpointOptions = {},
): Promise<Response> {
  if (!signedIn) return errorJson(401, 'UNAUTHORIZED', 'Sign in first.');
  const address = parseHandleAddress(handle);
  if (!address.ok) {
    return errorJson(
      400,
      'INVALID_REQUEST',
      `This endpoint follows a user of another node, written handle@domain: ${address.reason}.`,
    );
  }
  try {
    const target = `${address.value.handle}@${address.value.domain}`;
    const result = await api.interactions.follow({ address: target });
    return Response.json({ success: true, following: target, delivery: result.delivery });
  } catch (error) {
    return apiErrorResponse(error, options);
  }
}
