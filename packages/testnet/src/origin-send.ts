import { randomUUID } from 'node:crypto';
import { originSchemeFor, originSign, originSignBody } from './origin-signing.ts';
import type { OriginState, OriginViews } from './origin-state.ts';
import type { OriginPeer } from './origin-types.ts';

/** What it sends to other nodes (§4, §6), signed its way. */
export type OriginSender = Pick<
  OriginPeer,
  'signBody' | 'sign' | 'post' | 'announceTo' | 'gossipWith' | 'interact' | 'reply' | 'pushPost'
>;

export function createOriginSender(state: OriginState, views: OriginViews): OriginSender {
  const { domain, now, users, posts, nodes } = state;
  const { info, newPost } = views;

  async function post(
    target: string,
    path: string,
    body: unknown,
    headers: Record<string, string> = {},
  ) {
    const answer = await fetch(`${originSchemeFor(target)}://${target}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
    const text = await answer.text();
    let parsedBody: unknown = text;
    try {
      parsedBody = JSON.parse(text);
    } catch {
      // not JSON: keep the text
    }
    return { status: answer.status, body: parsedBody };
  }

  const signBody = <T extends Record<string, unknown>>(body: T) =>
    originSignBody(state.keys.privateKey, body);

  function actorFieldsFor(handle: string) {
    const user = users.get(handle);
    if (!user) throw new Error(`origin peer: no user ${handle}`);
    return {
      actorHandle: user.handle,
      actorDisplayName: user.displayName,
      ...(user.avatarUrl ? { actorAvatarUrl: user.avatarUrl } : {}),
      actorNodeDomain: domain,
    };
  }

  return {
    signBody,
    sign: (payload) => originSign(state.keys.privateKey, payload),
    post,
    announceTo(target) {
      const { lastSeenAt: _lastSeenAt, ...announcement } = info();
      return post(
        target,
        '/api/swarm/announce',
        signBody({ ...announcement, timestamp: now().toISOString() }),
      );
    },
    gossipWith(target, since) {
      return post(
        target,
        '/api/swarm/gossip',
        signBody({
          sender: domain,
          nodes: [
            info(),
            ...[...nodes.values()].map((n) => ({
              domain: n.domain,
              name: n.name ?? n.domain,
              lastSeenAt: n.lastSeenAt,
            })),
          ],
          handles: [...users.values()].map((u) => ({
            handle: u.handle,
            did: u.did,
            nodeDomain: domain,
            updatedAt: u.createdAt,
          })),
          timestamp: now().toISOString(),
          ...(since ? { since } : {}),
        }),
      );
    },
    async interact(target, kind, input) {
      const common = {
        interactionId: input.interactionId ?? randomUUID(),
        timestamp: input.timestamp ?? now().toISOString(),
      };
      const actor = actorFieldsFor(input.actor);
      let body: Record<string, unknown>;
      switch (kind) {
        case 'like':
          body = { postId: input.target, like: { ...actor, ...common } };
          break;
        case 'repost':
          body = {
            postId: input.target,
            repost: { ...actor, ...common, repostId: input.repostId ?? randomUUID() },
          };
          break;
        case 'unlike':
        case 'unrepost':
          body = {
            postId: input.target,
            [kind]: {
              actorHandle: actor.actorHandle,
              actorNodeDomain: actor.actorNodeDomain,
              ...common,
            },
          };
          break;
        case 'follow': {
          const user = users.get(input.actor);
          body = {
            targetHandle: input.target,
            follow: {
              followerHandle: actor.actorHandle,
              followerDisplayName: actor.actorDisplayName,
              ...(user?.avatarUrl ? { followerAvatarUrl: user.avatarUrl } : {}),
              ...(user?.bio ? { followerBio: user.bio } : {}),
              followerNodeDomain: domain,
              ...common,
            },
          };
          break;
        }
        case 'unfollow':
          body = {
            targetHandle: input.target,
            unfollow: { followerHandle: actor.actorHandle, followerNodeDomain: domain, ...common },
          };
          break;
        case 'mention':
          body = {
            mentionedHandle: input.target,
            mention: {
              ...actor,
              postId: input.postId ?? randomUUID(),
              postContent: input.postContent ?? `@${input.target}@${target}`,
              ...common,
            },
          };
          break;
      }
      // Its own rows first, as the origin writes them before telling the peer: the follow it
      // lists under `following`, the post that mentions (§5 serves both).
      const following = users.get(input.actor)?.following;
      if (kind === 'follow') following?.add(`${input.target}@${target}`.toLowerCase());
      if (kind === 'unfollow') following?.delete(`${input.target}@${target}`.toLowerCase());
      if (kind === 'mention' && !input.postId) {
        const mention = body.mention as { postId: string; postContent: string };
        newPost(input.actor, mention.postContent, now(), { id: mention.postId });
      }
      const sent = signBody(body);
      const answer = await post(target, `/api/swarm/interactions/${kind}`, sent);
      return { ...answer, sent };
    },
    async pushPost(target, input) {
      const user = users.get(input.author);
      if (!user) throw new Error(`origin peer: no user ${input.author}`);
      const stored =
        (input.postId ? posts.get(input.postId) : undefined) ??
        newPost(user.handle, input.content ?? '', now(), input.postId ? { id: input.postId } : {});
      const body = signBody({
        post: {
          id: stored.id,
          content: stored.content,
          createdAt: stored.createdAt,
          isNsfw: input.isNsfw ?? false,
          ...input.extra,
        },
        author: {
          handle: user.handle,
          displayName: user.displayName,
          ...(user.avatarUrl ? { avatarUrl: user.avatarUrl } : {}),
          isNsfw: false,
        },
        nodeDomain: domain,
        timestamp: input.timestamp ?? now().toISOString(),
      });
      const answer = await post(target, '/api/swarm/inbox', body);
      return { ...answer, sent: body };
    },
    async reply(target, input) {
      const user = users.get(input.actor);
      if (!user) throw new Error(`origin peer: no user ${input.actor}`);
      const body = {
        postId: input.postId,
        reply: {
          id: input.id ?? randomUUID(),
          content: input.content,
          createdAt: input.createdAt ?? now().toISOString(),
          author: {
            handle: user.handle,
            displayName: user.displayName,
            ...(user.avatarUrl ? { avatarUrl: user.avatarUrl } : {}),
            did: user.did,
            publicKey: user.publicKey,
          },
          nodeDomain: domain,
          mediaUrls: [],
        },
      };
      // The reply is its author's post on this node first (served by id, §5).
      if (!posts.has(body.reply.id)) {
        newPost(user.handle, input.content, new Date(body.reply.createdAt), {
          id: body.reply.id,
          isReply: true,
        });
      }
      const answer = await post(target, '/api/swarm/replies', body, {
        'X-Swarm-Source-Domain': domain,
        'X-Swarm-Signature': originSign(state.keys.privateKey, body),
      });
      return { ...answer, sent: body };
    },
  };
}
