import type { NodeContext, StreamNotification, StreamPost } from '@swarm/domain';
import { accountEntity } from '../entities/account.ts';
import { formatApiId } from '../ids.ts';
import { statusEntity } from '../entities/status.ts';
import type { StreamRenderers } from './hub.ts';

/**
 * The payloads of streamed events: Mastodon's Status entity (entities/status.ts, from the client
 * read model) and Notification entity, as JSON text, rendered in one read per batch.
 *
 * A status carries its receiver's `favourited`, `reblogged` and `bookmarked`, as the REST reads
 * do: the records are read once, the receivers' likes, reposts and bookmarks in one read for all
 * of them (`clientReads.forViewers`), and each post is rendered once per distinct state (at most
 * eight texts, most receivers sharing the one with none). Anonymous receivers get that one.
 * A notification belongs to one person; its status is theirs to read (their own post, or one
 * that mentions them), and carries their state the same way.
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
  /** The statuses of `rowIds`, each as one of `viewers` sees it (their like, repost, bookmark). */
  async function statusesFor(rowIds: readonly string[], viewers: readonly string[]) {
    const ids = [...new Set(rowIds)];
    const records = ids.length > 0 ? await node.clientReads.statusesByRows(null, ids) : [];
    const seenBy = await node.clientReads.forViewers(records, viewers);
    const byId = new Map(records.map((record) => [record.rowId, record]));
    return (postId: string, viewer: string | null) => {
      const record = byId.get(postId);
      return record && viewer ? seenBy(viewer, record) : record;
    };
  }
  return {
    async statuses(posts: readonly StreamPost[], viewers: readonly string[]) {
      const seenBy = await statusesFor(
        posts.map((p) => p.id),
        viewers,
      );
      const texts = new Map<string, string>();
      return (postId, viewer) => {
        const seen = seenBy(postId, viewer);
        if (!seen) return undefined;
        const { favourited, reblogged, bookmarked } = seen.viewer;
        const key = `${postId} ${+favourited}${+reblogged}${+bookmarked}`;
        let text = texts.get(key);
        if (text === undefined) texts.set(key, (text = JSON.stringify(statusEntity(seen, domain))));
        return text;
      };
    },
    listMembers: (lists, posts) => node.lists.holding(lists, posts),
    async ownsList(userId, list) {
      return (await node.lists.get(userId, list)).ok;
    },
    async notifications(notes: readonly StreamNotification[]) {
      const actorIds = [...new Set(notes.flatMap((n) => (n.accountId ? [n.accountId] : [])))];
      const withPosts = notes.filter((n) => n.postId !== null);
      const [statusOf, ...actors] = await Promise.all([
        statusesFor(
          withPosts.map((n) => n.postId!),
          withPosts.map((n) => n.recipientId),
        ),
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
        // As its recipient sees it: their like, repost and bookmark of the post.
        const seen = note.postId ? statusOf(note.postId, note.recipientId) : undefined;
        const status = seen ? statusEntity(seen, domain) : undefined;
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
