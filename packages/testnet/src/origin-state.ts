import { generateKeyPairSync, randomUUID, type KeyObject } from 'node:crypto';
import { base58btcEncode } from '@swarm/contract';
import type { OriginEndpoint } from './origin-schemas.ts';
import type {
  OriginAccepted,
  OriginHandleRecord,
  OriginNodeRecord,
  OriginNotification,
  OriginPost,
  OriginRefused,
  OriginReply,
  OriginUser,
} from './origin-types.ts';

export const ORIGIN_VERSION = '0.1.0';

/** What one fake origin peer holds: its identity, its key (rotatable), its rows and its records. */
export interface OriginState {
  domain: string;
  name: string;
  createdAt: string;
  now: () => Date;
  keys: { privateKey: KeyObject; publicKeyPem: string };
  users: Map<string, OriginUser>;
  posts: Map<string, OriginPost>;
  nodes: Map<string, OriginNodeRecord>;
  handles: Map<string, OriginHandleRecord>;
  accepted: OriginAccepted[];
  refused: OriginRefused[];
  notifications: OriginNotification[];
  keyFetches: string[];
  gets: string[];
  refusing: Map<OriginEndpoint, number>;
}

export function userKeyMaterial(): { publicKey: string; did: string } {
  const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const der = publicKey.export({ type: 'spki', format: 'der' });
  return {
    publicKey: der.toString('base64'),
    did: `did:key:z${base58btcEncode(new Uint8Array(der))}`,
  };
}

/** Its rows as it shows them (§5), and how it writes a post. */
export function createOriginViews(state: OriginState) {
  const { domain, name, users, posts, now } = state;

  const info = (): Record<string, unknown> => ({
    domain,
    name,
    description: 'A fake node of the origin profile',
    publicKey: state.keys.publicKeyPem,
    softwareVersion: ORIGIN_VERSION,
    userCount: users.size,
    postCount: posts.size,
    isNsfw: false,
    capabilities: ['handles', 'gossip', 'interactions'],
    lastSeenAt: now().toISOString(),
  });

  const countLikes = (p: OriginPost) => p.likes.size;

  const profileOf = (u: OriginUser) => ({
    handle: u.handle,
    displayName: u.displayName,
    ...(u.bio ? { bio: u.bio } : {}),
    ...(u.avatarUrl ? { avatarUrl: u.avatarUrl } : {}),
    followersCount: u.followers.size,
    followingCount: 0,
    postsCount: [...posts.values()].filter((p) => p.authorHandle === u.handle).length,
    createdAt: u.createdAt,
    nodeDomain: domain,
    publicKey: u.publicKey,
    did: u.did,
    botOwnerHandle: null,
  });

  const authorOf = (handle: string) => {
    const u = users.get(handle);
    return { handle, displayName: u?.displayName ?? handle, avatarUrl: u?.avatarUrl ?? null };
  };

  const newestFirst = () =>
    [...posts.values()]
      .filter((p) => !p.isReply)
      .sort((a, b) => (a.createdAt < b.createdAt ? 1 : -1));

  /** Post as the origin lists it in profiles (§5): no `media` when there is none. */
  const profilePost = (p: OriginPost) => ({
    id: p.id,
    content: p.content,
    createdAt: p.createdAt,
    isNsfw: false,
    likesCount: countLikes(p),
    repostsCount: p.reposts.size,
    repliesCount: p.replies.length,
    linkPreviewTitle: null,
    linkPreviewDescription: null,
    linkPreviewImage: null,
    originalPostId: null,
    nodeDomain: domain,
    author: { ...authorOf(p.authorHandle), isBot: false, nodeDomain: domain },
    repostOfId: p.repostOfId ?? null,
    repostOf: null,
  });

  const timelinePost = (p: OriginPost) => ({
    id: p.id,
    content: p.content,
    createdAt: p.createdAt,
    author: { ...authorOf(p.authorHandle), isNsfw: false, isBot: false },
    nodeDomain: domain,
    nodeIsNsfw: false,
    isNsfw: false,
    likeCount: countLikes(p),
    repostCount: p.reposts.size,
    replyCount: p.replies.length,
    isReply: false,
    replyToId: null,
    swarmReplyToId: null,
    repostOfId: p.repostOfId ?? null,
    repostOf: null,
    linkPreviewTitle: null,
    linkPreviewDescription: null,
    linkPreviewImage: null,
    linkPreviewType: null,
    linkPreviewVideoUrl: null,
    linkPreviewMedia: null,
  });

  const replyListItem = (r: OriginReply) => ({
    id: r.id,
    content: r.content,
    createdAt: r.createdAt,
    author: { handle: r.authorHandle, displayName: r.authorDisplayName },
    nodeDomain: r.nodeDomain,
    likeCount: 0,
    repostCount: 0,
    replyCount: 0,
  });

  function newPost(
    authorHandle: string,
    content: string,
    at: Date,
    extra: { id?: string; isReply?: boolean } = {},
  ): OriginPost {
    const p: OriginPost = {
      id: extra.id ?? randomUUID(),
      authorHandle: authorHandle.toLowerCase(),
      content,
      createdAt: at.toISOString(),
      likes: new Set(),
      reposts: new Set(),
      replies: [],
      ...(extra.isReply ? { isReply: true } : {}),
    };
    posts.set(p.id, p);
    return p;
  }

  return {
    info,
    countLikes,
    profileOf,
    authorOf,
    newestFirst,
    profilePost,
    timelinePost,
    replyListItem,
    newPost,
  };
}

export type OriginViews = ReturnType<typeof createOriginViews>;
