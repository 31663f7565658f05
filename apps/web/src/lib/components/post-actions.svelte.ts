import type { DeliveryView, PostView } from '@swarm/domain';
import { signPrepared } from '$lib/keys';
import { onLiveChange } from '$lib/live.svelte';
import { actionMessage } from '$lib/format';
import { trpc } from '$lib/trpc';

// What a post card lets its reader do (issue #16: PostCard split into a view and its actions):
// like, unlike, repost, unrepost, bookmark and delete, each signed in this browser when the post lives on another
// node, shown at once (optimistic counts over the server's truth) and followed while its
// delivery is retried: live updates (`/events`) say when the delivery changed, no timer does.

type Busy = null | 'like' | 'repost' | 'bookmark' | 'delete';

function errorText(cause: unknown): string {
  return cause instanceof Error && cause.message ? cause.message : 'Something went wrong.';
}

/** Call during the card's initialisation (it sets up an effect); `post` is the card's prop. */
export class PostActions {
  // Server truth, overridden locally after an action succeeds (and reset when the post reloads).
  liked = $derived.by(() => this.post().viewer?.liked ?? false);
  reposted = $derived.by(() => this.post().viewer?.reposted ?? false);
  bookmarked = $derived.by(() => this.post().viewer?.bookmarked ?? false);
  likes = $derived.by(() => this.post().likesCount);
  reposts = $derived.by(() => this.post().repostsCount);

  busy = $state<Busy>(null);
  /** The outcome of the last action, for the card's status line. */
  message = $state('');
  failed = $state(false);
  /** A delivery still being retried: its status is looked up again when it changes. */
  watching = $state<{ id: string; verb: string } | null>(null);

  private readonly post: () => PostView;
  private readonly ondeleted?: (id: string) => void;

  constructor(post: () => PostView, ondeleted?: (id: string) => void) {
    this.post = post;
    this.ondeleted = ondeleted;
    onLiveChange(
      (state) => state.deliveries,
      () => void this.#checkWatched(),
    );
  }

  async #checkWatched() {
    const watching = this.watching;
    if (!watching) return;
    try {
      const delivery = await trpc.deliveries.get.query({ id: watching.id });
      if (this.watching?.id !== watching.id) return;
      this.message = actionMessage(watching.verb, delivery);
      if (delivery.status !== 'pending') this.watching = null;
    } catch {
      // Offline for a moment: the next change tries again.
    }
  }

  /** Remote posts: the node prepares the interaction, this browser signs it with the user's key. */
  async #signedFor(kind: 'like' | 'unlike' | 'repost' | 'unrepost') {
    const post = this.post();
    if (!post.isRemote) return undefined;
    const prepared = await trpc.interactions.prepare.mutate({ kind, postId: post.id });
    if (prepared.local) return undefined;
    return signPrepared({
      action: prepared.action,
      targetDomain: prepared.targetDomain,
      body: prepared.body,
    });
  }

  /** Lets the node queue a first like/repost of a remote post whose node is down right now. */
  #authorAddress() {
    const post = this.post();
    return post.author.isRemote ? post.author.address : undefined;
  }

  async #run(
    what: 'like' | 'repost',
    verb: string,
    action: () => Promise<{ delivery: DeliveryView | null }>,
    apply: () => void,
  ) {
    this.busy = what;
    this.failed = false;
    this.message = 'Sending…';
    this.watching = null;
    try {
      const { delivery } = await action();
      apply();
      this.message = actionMessage(verb, delivery);
      if (delivery?.status === 'pending') this.watching = { id: delivery.id, verb };
    } catch (cause) {
      this.failed = true;
      const attempted =
        what === 'like'
          ? this.liked
            ? 'unlike'
            : 'like'
          : this.reposted
            ? 'undo the repost'
            : 'repost';
      this.message = `Could not ${attempted}: ${errorText(cause)}`;
    } finally {
      this.busy = null;
    }
  }

  toggleLike(): Promise<void> | undefined {
    if (this.busy) return;
    const kind = this.liked ? 'unlike' : 'like';
    const post = this.post();
    return this.#run(
      'like',
      kind === 'like' ? 'Liked' : 'Unliked',
      async () => {
        const signed = await this.#signedFor(kind);
        return kind === 'like'
          ? trpc.interactions.like.mutate({
              postId: post.id,
              signed,
              authorAddress: this.#authorAddress(),
            })
          : trpc.interactions.unlike.mutate({ postId: post.id, signed });
      },
      () => {
        this.liked = kind === 'like';
        this.likes = Math.max(0, this.likes + (this.liked ? 1 : -1));
      },
    );
  }

  toggleRepost(): Promise<void> | undefined {
    if (this.busy) return;
    const kind = this.reposted ? 'unrepost' : 'repost';
    const post = this.post();
    return this.#run(
      'repost',
      kind === 'repost' ? 'Reposted' : 'Repost undone',
      async () => {
        const signed = await this.#signedFor(kind);
        return kind === 'repost'
          ? trpc.interactions.repost.mutate({
              postId: post.id,
              signed,
              authorAddress: this.#authorAddress(),
            })
          : trpc.interactions.unrepost.mutate({ postId: post.id, signed });
      },
      () => {
        this.reposted = kind === 'repost';
        this.reposts = Math.max(0, this.reposts + (this.reposted ? 1 : -1));
      },
    );
  }

  /** Bookmarks are this node's own (private, never sent anywhere): nothing to sign. */
  async toggleBookmark(): Promise<void> {
    if (this.busy) return;
    const post = this.post();
    const adding = !this.bookmarked;
    this.busy = 'bookmark';
    this.failed = false;
    this.watching = null;
    try {
      if (adding) await trpc.bookmarks.add.mutate({ postId: post.id });
      else await trpc.bookmarks.remove.mutate({ postId: post.id });
      this.bookmarked = adding;
      this.message = adding ? 'Bookmarked.' : 'Bookmark removed.';
    } catch (cause) {
      this.failed = true;
      this.message = `Could not ${adding ? 'bookmark' : 'remove the bookmark'}: ${errorText(cause)}`;
    } finally {
      this.busy = null;
    }
  }

  async remove(): Promise<void> {
    const post = this.post();
    this.busy = 'delete';
    this.failed = false;
    try {
      // Signed with the user's key, the deletion reaches the nodes holding a copy; without a
      // key in this browser the post is deleted here only (and the message says so).
      const signed = await trpc.account.prepareDeletion
        .mutate({ kind: 'post', postId: post.id })
        .then((prepared) => signPrepared(prepared))
        .catch(() => null);
      await trpc.account.deletePost.mutate({ id: post.id, signed });
      this.message = signed
        ? 'Post deleted.'
        : 'Post deleted here; other nodes were not told (this browser has no key for you).';
      this.ondeleted?.(post.id);
    } catch (cause) {
      this.failed = true;
      this.message = `Could not delete: ${errorText(cause)}`;
    } finally {
      this.busy = null;
    }
  }
}
