import type { NodeContext, StreamNotification, StreamPost } from '@swarm/domain';
import { accountEntity } from '../entities/account.ts';
import { formatApiId } from '../ids.ts';
import { statusEntity } from '../entities/status.ts';
import type { StreamRenderers } from './hub.ts';

/**
 * The payloads of streamed events: Mastodon's Status entity (entities/status.ts, from the client
 * read model) and Notification entity, as JSON text, rendered in one read per batch.
 *
 * Statuses are rendered as nobody in particular sees them (no `favourited`, `reblogged` or
 * `bookmarked` of the receiver): a post that just appeared has none of those for anyone but in
 * rare cases (a repost of something the receiver liked), and one rendering then serves every
 * connection. A notification belongs to one person; its status is theirs to read (their own
 * post, or one that mentions them).
 */

/** Our notification kinds as Mastodon names them: a reply is a mention there. */
const NOTIFICATION_TYPES: Record<string, string> = {
  like: 'favourite',
  repost: 'reblog',
  follow: 'follow',
  mention: 'mention',
  reply: 'mention',
};

export function createStreamRenderers(node: NodeContext): StreamRenderers {
  const domain = node.config.domain;
  async function statusesById(rowIds: readonly string[]) {
    const unique = [...new Set(rowIds)];
    const records = unique.length > 0 ? await node.clientReads.statusesByRows(null, unique) : [];
    return new Map(records.map((record) => [record.rowId, statusEntity(record, domain)]));
  }
  return {
    async statuses(posts: readonly StreamPost[]) {
      const entities = await statusesById(posts.map((p) => p.id));
      const out = new Map<string, string>();
      for (const [id, entity] of entities) out.set(id, JSON.stringify(entity));
      return out;
    },
    listMembers: (lists, posts) => node.lists.holding(lists, posts),
    async ownsList(userId, list) {
      return (await node.lists.get(userId, list)).ok;
    },
    async notifications(notes: readonly StreamNotification[]) {
      const actorIds = [...new Set(notes.flatMap((n) => (n.accountId ? [n.accountId] : [])))];
      const [statuses, ...actors] = await Promise.all([
        statusesById(notes.flatMap((n) => (n.postId ? [n.postId] : []))),
        ...actorIds.map((id) => node.clientReads.account(id)),
      ]);
      const accounts = new Map(
        actors.flatMap((a, i) => (a ? [[actorIds[i]!, accountEntity(a, domain)] as const] : [])),
      );
      const out = new Map<string, string>();
      for (const note of notes) {
        const account = note.accountId ? accounts.get(note.accountId) : undefined;
        const type = NOTIFICATION_TYPES[note.type];
        // Mastodon's entity always names who did it: one whose account is gone is not sent.
        if (!account || !type) continue;
        const status = note.postId ? statuses.get(note.postId) : undefined;
        if (type !== 'follow' && !status) continue;
        out.set(
          note.id,
          JSON.stringify({
            id: formatApiId(BigInt(note.apiId)),
            type,
            created_at: note.createdAt.toISOString(),
            group_key: `ungrouped-${note.apiId}`,
            account,
            ...(type === 'follow' ? {} : { status }),
          }),
        );
      }
      return out;
    },
  };
}
