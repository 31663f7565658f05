import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { clampLimit, send } from './origin-http.ts';
import { uuidRule } from './origin-schemas.ts';
import { ORIGIN_VERSION, type OriginState, type OriginViews } from './origin-state.ts';

/** Its GET endpoints (§5): node info, lists, profiles, posts and replies. */
export function createOriginGets(state: OriginState, views: OriginViews) {
  const { domain, name, createdAt, now, users, posts, nodes } = state;
  const {
    info,
    countLikes,
    profileOf,
    authorOf,
    newestFirst,
    profilePost,
    timelinePost,
    replyListItem,
  } = views;

  function handleGet(res: ServerResponse, path: string, query: URLSearchParams) {
    if (path === '/api/node') {
      return send(res, 200, {
        id: randomUUID(),
        domain,
        name,
        description: 'A fake node of the origin profile',
        logoUrl: null,
        faviconUrl: null,
        isNsfw: false,
        publicKey: state.keys.publicKeyPem,
        admins: [],
        createdAt,
        updatedAt: createdAt,
      });
    }
    if (path === '/api/swarm/info') return send(res, 200, info());
    if (path === '/.well-known/synapsis-swarm' || path === '/.well-known/synapsis-handles') {
      const limit = clampLimit(query.get('limit'), 50, 200);
      const list = [...nodes.values()].slice(0, limit);
      const i = info();
      return send(res, 200, {
        node: {
          domain,
          name,
          description: i.description,
          publicKey: state.keys.publicKeyPem,
          softwareVersion: ORIGIN_VERSION,
          capabilities: i.capabilities,
        },
        swarm: {
          totalNodes: nodes.size + 1,
          activeNodes: nodes.size + 1,
          totalUsers: users.size,
          totalPosts: posts.size,
          seeds: [],
        },
        nodes: list.map((n) => ({
          domain: n.domain,
          name: n.name ?? n.domain,
          lastSeenAt: n.lastSeenAt,
        })),
      });
    }
    if (path === '/api/swarm/nodes') {
      return send(res, 200, {
        nodes: [...nodes.values()].map((n) => ({
          domain: n.domain,
          name: n.name ?? n.domain,
          description: n.description ?? '',
          logoUrl: '',
          publicKey: n.publicKey ?? '',
          softwareVersion: '',
          userCount: 0,
          postCount: 0,
          capabilities: n.capabilities ?? [],
          isNsfw: false,
          lastSeenAt: n.lastSeenAt,
        })),
      });
    }
    if (path === '/api/swarm/timeline') {
      const limit = clampLimit(query.get('limit'), 20, 50);
      return send(res, 200, {
        posts: newestFirst().slice(0, limit).map(timelinePost),
        nodeDomain: domain,
        nodeIsNsfw: false,
        timestamp: now().toISOString(),
      });
    }
    let m = /^\/api\/swarm\/users\/([^/]+)(\/followers|\/following)?$/.exec(path);
    if (m) {
      const user = users.get(decodeURIComponent(m[1] ?? '').toLowerCase());
      if (!user) return send(res, 404, { error: 'User not found' });
      if (m[2] === '/followers') {
        return send(res, 200, {
          followers: [...user.followers.values()].map((f) => ({
            handle: f.nodeDomain === domain ? f.handle : `${f.handle}@${f.nodeDomain}`,
            displayName: f.displayName,
            isRemote: f.nodeDomain !== domain,
          })),
          nodeDomain: domain,
          timestamp: now().toISOString(),
        });
      }
      if (m[2] === '/following') {
        // §5: limit default 50, max 100; remote entries `handle@domain`, newest first.
        const limit = clampLimit(query.get('limit'), 50, 100);
        return send(res, 200, {
          following: [...user.following]
            .reverse()
            .slice(0, limit)
            .map((address) => ({
              handle: address,
              displayName: address.split('@')[0] ?? address,
              isRemote: true,
            })),
          nodeDomain: domain,
          timestamp: now().toISOString(),
        });
      }
      const limit = clampLimit(query.get('limit'), 25, 50);
      return send(res, 200, {
        profile: profileOf(user),
        posts: newestFirst()
          .filter((p) => p.authorHandle === user.handle)
          .slice(0, limit)
          .map(profilePost),
        nodeDomain: domain,
        timestamp: now().toISOString(),
      });
    }
    m = /^\/api\/swarm\/posts\/([^/]+)(\/likes)?$/.exec(path);
    if (m) {
      const id = decodeURIComponent(m[1] ?? '');
      if (!uuidRule.safeParse(id).success) return send(res, 400, { error: 'Invalid post id' });
      const post = posts.get(id);
      if (!post) return send(res, 404, { error: 'Post not found' });
      if (m[2]) return send(res, 200, { postId: id, likesCount: countLikes(post) });
      // §5: `{post, replies}`; no nodeDomain, isNsfw, replyToId or author.isNsfw on `post`.
      return send(res, 200, {
        post: {
          id: post.id,
          apId: `https://${domain}/posts/${post.id}`,
          content: post.content,
          createdAt: post.createdAt,
          likesCount: countLikes(post),
          repostsCount: post.reposts.size,
          repliesCount: post.replies.length,
          author: authorOf(post.authorHandle),
          media: [],
          linkPreviewTitle: null,
          linkPreviewDescription: null,
          linkPreviewImage: null,
        },
        replies: post.replies.map(replyListItem),
      });
    }
    if (path === '/api/swarm/replies') {
      const postId = query.get('postId') ?? '';
      const post = posts.get(postId);
      if (!post) return send(res, 404, { error: 'Post not found' });
      return send(res, 200, {
        postId,
        replies: post.replies.map(replyListItem),
        nodeDomain: domain,
      });
    }
    m = /^\/api\/users\/([^/]+)(\/posts)?$/.exec(path);
    if (m) {
      const user = users.get(decodeURIComponent(m[1] ?? '').toLowerCase());
      if (!user) return send(res, 404, { error: 'User not found' });
      if (m[2]) {
        const limit = clampLimit(query.get('limit'), 20, 50);
        return send(res, 200, {
          posts: newestFirst()
            .filter((p) => p.authorHandle === user.handle)
            .slice(0, limit)
            .map((p) => ({
              id: p.id,
              content: p.content,
              createdAt: p.createdAt,
              likesCount: countLikes(p),
              repostsCount: p.reposts.size,
              repliesCount: p.replies.length,
              author: authorOf(p.authorHandle),
              media: [],
            })),
          nextCursor: null,
        });
      }
      const profile = profileOf(user);
      return send(res, 200, {
        user: {
          id: randomUUID(),
          handle: user.handle,
          displayName: user.displayName,
          bio: user.bio ?? null,
          avatarUrl: user.avatarUrl ?? null,
          headerUrl: null,
          website: null,
          followersCount: profile.followersCount,
          followingCount: 0,
          postsCount: profile.postsCount,
          createdAt: user.createdAt,
          isBot: false,
          publicKey: user.publicKey,
          did: user.did,
          dmPrivacy: 'everyone',
          canReceiveDms: true,
        },
      });
    }
    return send(res, 404, { error: 'Not found' });
  }

  return handleGet;
}
