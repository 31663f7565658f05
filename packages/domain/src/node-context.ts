import type { AppAccountService } from './app-accounts/index.ts';
import type { MarkerService } from './markers/index.ts';
import type { Db } from '@swarm/db';
import type { Clock } from './clock.ts';
import type { NodeConfig } from './config.ts';
import type { Lifecycle } from './lifecycle.ts';
import type { Logger } from './logger.ts';
import type { NodeInfoService } from './node-info.service.ts';
import type { NodeKeys } from './node-keys.service.ts';
import type { PeerClient, PeerProfiles } from './peers/index.ts';
import type { GossipService, RegistryAdminService, RegistryService } from './registry/index.ts';
import type { AdminTokenService, NodeAuthService } from './security/index.ts';
import type { InboundInteractionService, OriginConfirmationService } from './interactions/index.ts';
import type { ContentService } from './content/index.ts';
import type { BookmarkService } from './bookmarks/index.ts';
import type { FeedService, ThreadService } from './feeds/index.ts';
import type { ListService } from './lists/index.ts';
import type {
  PostInbox,
  RemoteContent,
  RemotePostStore,
  RemoteProfileStore,
} from './remote-posts/index.ts';
import type { FollowListService, ProfileService } from './profiles/index.ts';
import type { LinkPreviewService } from './previews/index.ts';
import type { SearchService } from './search/index.ts';
import type { NotificationService } from './notifications/index.ts';
import type { PushSender, PushSubscriptionService } from './push/index.ts';
import type { DeliveryService } from './delivery/index.ts';
import type { ActionServices } from './actions/index.ts';
import type { AppDelegations } from './delegations/index.ts';
import type { MessageService } from './messages/index.ts';
import type { AccountOwnershipService, InboundOwnershipService } from './ownership/index.ts';
import type { FailureLog, HealthService, NodeMetrics, RequestContext } from './ops/index.ts';
import type { Invalidations, Limits } from './replicas/index.ts';
import type { MediaProxyService, UploadService } from './media/index.ts';
import type { LiveHub } from './live/index.ts';
import type { ModerationServices } from './moderation/index.ts';
import type { ClientReads } from './client-reads/index.ts';

/** Everything one node needs, built by factories and passed in; tests build several. */
export interface NodeContext {
  config: NodeConfig;
  db: Db;
  logger: Logger;
  clock: Clock;
  /** Shutting down or not: the entry point begins the shutdown, readiness reads it. */
  lifecycle: Lifecycle;
  /** Named rate limits, shared by the node's processes (memory, Postgres or Redis). */
  limits: Limits;
  /** Tells the node's other processes to drop cached reads after a write. */
  invalidations: Invalidations;
  keys: NodeKeys;
  /** Outbound HTTP to other nodes: SSRF-guarded, time-limited, node-signed POSTs. */
  peers: PeerClient;
  /** Which profile each peer speaks (ours or the origin's), detected and recorded. */
  peerProfiles: PeerProfiles;
  nodeInfo: NodeInfoService;
  /** Node registry and trust, seeds, announce and discovery (docs/protocol.md). */
  registry: RegistryService;
  gossip: GossipService;
  /** The operator's view and actions on the registry: node lists, seeds, blocks, runs. */
  registryAdmin: RegistryAdminService;
  /** Receiver of likes, follows, mentions, replies… from other nodes (spec "Receiver effects"). */
  interactions: InboundInteractionService;
  /** Origin-profile follows, mentions and replies held until the sender's data confirms them. */
  originConfirmations: OriginConfirmationService;
  /** Inbound node-signed requests: pinned keys, clock window, nonces (docs/protocol.md). */
  nodeAuth: NodeAuthService;
  /** Admin bearer tokens: bootstrap ADMIN_TOKEN and stored (hashed) tokens. */
  adminTokens: AdminTokenService;
  /** Public reads about content: profiles, timeline, posts, replies. */
  content: ContentService;
  /** What people read: home, public and swarm timelines (docs/decisions.md "Swarm feed"). */
  feeds: FeedService;
  /** A person's bookmarks: posts kept to read again, private, never federated (issue 25). */
  bookmarks: BookmarkService;
  /** A person's lists of people they follow, and each list's timeline (issue 25). */
  lists: ListService;
  /** Remote posts kept in this node's database: pushed, polled, crawled (docs/architecture.md). */
  remotePosts: RemotePostStore;
  /** What other nodes said of their users (profile pages read it): poller and on-demand reads. */
  remoteProfiles: RemoteProfileStore;
  /** Posts pushed by the nodes of people followed here (`POST /api/swarm/inbox`). */
  postInbox: PostInbox;
  /**
   * The background reads that fill it: the poller (followed remote people), the crawler (peers'
   * timelines, on the operator's budget) and the retention sweep; the gateway runs them.
   */
  remoteContent: RemoteContent;
  /** A post page with its replies, local or fetched from the post's node. */
  threads: ThreadService;
  /** What the client API reads: statuses by api id, their threads, timelines by api id. */
  clientReads: ClientReads;
  /** Local and remote profiles (`alice`, `bob@beta.example`). */
  profiles: ProfileService;
  /** Followers and following lists, served to peers and shown to people (issue #14). */
  followLists: FollowListService;
  /** People, posts and hashtags; tag pages (issue #14). */
  search: SearchService;
  /** Cards for the first link of a post being written (issue #14). */
  linkPreviews: LinkPreviewService;
  /** A user's notifications, unread count, mark read. */
  notifications: NotificationService;
  /** People as apps address them (by row id), relationships, follow pages (docs/clients.md). */
  appAccounts: AppAccountService;
  /** Where a person stopped reading in their apps (the client API's markers). */
  markers: MarkerService;
  /**
   * Web Push (docs/clients.md): people's subscriptions (apps' and the web app's) and the sender
   * of the push outbox, which the gateway process's push worker runs.
   */
  push: { subscriptions: PushSubscriptionService; sender: PushSender };
  /**
   * The durable outbox: every delivery to another node, sent at once and retried
   * (docs/protocol.md, "Delivery and the outbox").
   */
  delivery: DeliveryService;
  /** What a signed-in user does: posts, likes, reposts, follows, locally and to other nodes. */
  actions: ActionServices;
  /**
   * App keys the person signs (docs/protocol.md "App delegations"): consent, signing an app's
   * interactions and posts (`signInteraction`, `signPost`), the published state, revocation.
   */
  appDelegations: AppDelegations;
  /** Direct messages: end-to-end encrypted envelopes, stored and relayed (issue #5). */
  messages: MessageService;
  /** Mutes and blocks, reports, registrations, suspension and the audit log (issue #15). */
  moderation: ModerationServices;
  /** A user's account as a whole: delete, export, import, move (issue #15). */
  ownership: AccountOwnershipService;
  /** Deletions and moves other nodes relay here (docs/protocol.md). */
  inboundOwnership: InboundOwnershipService;
  /** `/readyz` checks, and whether an error means the database is unreachable. */
  health: HealthService;
  /** Prometheus registry of this node (`/metrics`). */
  metrics: NodeMetrics;
  /** The request being served (its id goes to logs and to peers as X-Request-Id). */
  requestContext: RequestContext;
  /** Repeated failures (database down…) logged once per interval, not once per request. */
  failures: FailureLog;
  /** Images pages show, fetched by the node and served from its origin (signed URLs only). */
  media: MediaProxyService;
  /** Images people upload: processed, stored (disk or S3), served, swept (issue #14 "Photos"). */
  uploads: UploadService;
  /** Server-sent event streams of signed-in pages in this process (issue #14 "Live updates"). */
  live: LiveHub;
  close(): Promise<void>;
}
