/**
 * What the web app shows: one shape for a post or a person whether it lives on this node or on
 * another one, so pages render local and remote content alike. These are app view models, not
 * wire shapes (those live in @swarm/contract); services build them through explicit mappers.
 */

/** A person as shown next to their content. */
export interface ActorView {
  handle: string;
  /** The node that hosts them (this node's domain for local users). */
  domain: string;
  /** `alice` for a local user, `bob@beta.example` for a remote one: what `/@{address}` takes. */
  address: string;
  displayName: string;
  avatarUrl: string | null;
  /** What pages load: `avatarUrl` through this node's media proxy (set by the API layer). */
  avatarSrc?: string | null;
  isRemote: boolean;
}

export interface MediaView {
  url: string;
  mimeType: string;
  altText: string;
  /** Placeholder while it loads (images uploaded to this node). */
  blurhash?: string;
  /** What pages load: `url` through this node's media proxy (set by the API layer). */
  src?: string | null;
}

export interface LinkPreviewView {
  url: string;
  title: string | null;
  description: string | null;
  image: string | null;
  /** What pages load: `image` through this node's media proxy (set by the API layer). */
  imageSrc?: string | null;
}

/** What the signed-in viewer has done with a post (null when nobody is signed in). */
export interface PostViewerState {
  liked: boolean;
  reposted: boolean;
  /** In the viewer's bookmarks (private to them). */
  bookmarked: boolean;
  isOwn: boolean;
}

export interface PostView {
  /** Local posts: their UUID. Remote posts: `swarm:{domain}:{postId}` (the spec's apId form). */
  id: string;
  /** App path of the post page: `/posts/{id}`. */
  path: string;
  author: ActorView;
  content: string;
  createdAt: string;
  isNsfw: boolean;
  media: MediaView[];
  linkPreview: LinkPreviewView | null;
  likesCount: number;
  repostsCount: number;
  repliesCount: number;
  /** The id (same forms as `id`) of the post this one replies to. */
  replyToId: string | null;
  /** Set when this entry is shown because someone reposted it. */
  repostedBy: ActorView | null;
  /** The node the post lives on. */
  nodeDomain: string;
  isRemote: boolean;
  viewer: PostViewerState | null;
}

export interface ProfileView {
  actor: ActorView;
  bio: string;
  headerUrl: string | null;
  /** What pages load: `headerUrl` through this node's media proxy (set by the API layer). */
  headerSrc?: string | null;
  website: string | null;
  followersCount: number;
  followingCount: number;
  postsCount: number;
  createdAt: string | null;
  did: string | null;
  /** The account moved there (`handle@domain`), by a move signed with the user's key. */
  movedTo: string | null;
  /** Imported from there (`handle@domain`): this node holds the account now. */
  movedFrom: string | null;
  isNsfw: boolean;
  isBot: boolean;
  /**
   * Null when nobody is signed in. `followState` is `pending` until the remote node accepted;
   * `muted` / `blocked`: the viewer muted or blocked this person (the page offers to undo it).
   */
  viewer: {
    isSelf: boolean;
    followState: 'none' | 'pending' | 'accepted';
    muted: boolean;
    blocked: boolean;
  } | null;
}

/** State of one delivery to another node, as the acting user and admins see it. */
export interface DeliveryView {
  id: string;
  kind: string;
  targetDomain: string;
  status: 'pending' | 'delivered' | 'failed' | 'cancelled';
  attempts: number;
  nextAttemptAt: string | null;
  lastError: string | null;
  lastStatus: number | null;
  interactionId: string | null;
  createdAt: string;
  deliveredAt: string | null;
  /** For people: `delivered`, `retrying, next in 4 min`, `failed: post not found`. */
  summary: string;
}

/** What a user action answers: done locally, delivered, or queued for retry, or refused. */
export interface ActionResult {
  /** A delivery to another node, when the action had one. */
  delivery: DeliveryView | null;
}

export interface NotificationView {
  id: string;
  type: 'like' | 'repost' | 'follow' | 'mention' | 'reply';
  actor: ActorView;
  /** App path of the post concerned, if any. */
  postPath: string | null;
  excerpt: string | null;
  createdAt: string;
  read: boolean;
}
