import { resolve } from 'node:path';
import { err } from '@swarm/contract';
import { createDb, createMigratedDb, type Db } from '@swarm/db';
import { systemClock, type Clock } from './clock.ts';
import type { NodeConfig } from './config.ts';
import { createLifecycle } from './lifecycle.ts';
import type { Logger } from './logger.ts';
import type { NodeContext } from './node-context.ts';
import { createNodeInfoService } from './node-info.service.ts';
import { loadOrCreateNodeKeys, loadOrCreateVapidKeys } from './node-keys.service.ts';
import { createModerationServices } from './moderation/index.ts';
import { createClientReads } from './client-reads/index.ts';
import {
  createPeerClient,
  createPeerProfiles,
  withPeerProfiles,
  createVisitorFetchGate,
  type PeerTransport,
  type ResolveHost,
} from './peers/index.ts';
import { createRegistryAdminService, createSwarmServices } from './registry/index.ts';
import { createAdminTokenService, createNodeAuthService } from './security/index.ts';
import {
  createInboundInteractionService,
  createOriginConfirmationService,
  type OriginConfirmationOptions,
} from './interactions/index.ts';
import { createContentService, createDemoContentService } from './content/index.ts';
import {
  actorView,
  createFeedService,
  createPeerReader,
  createSeenPosts,
  createThreadService,
  profilePostToView,
  singlePostToView,
  timelinePostToView,
  type PeerReadOptions,
} from './feeds/index.ts';
import { createBookmarkService } from './bookmarks/index.ts';
import { createListService } from './lists/index.ts';
import { createFollowListService, createProfileService } from './profiles/index.ts';
import { createLinkPreviewService } from './previews/index.ts';
import { createSearchService } from './search/index.ts';
import { createNotificationService } from './notifications/index.ts';
import { createPushSender, createPushSubscriptionService } from './push/index.ts';
import { createAppAccountService } from './app-accounts/index.ts';
import { createMarkerService } from './markers/index.ts';
import { createDeliveryService } from './delivery/index.ts';
import { createAppDelegations } from './delegations/index.ts';
import { createActionServices } from './actions/index.ts';
import { createAccountOwnershipService, createInboundOwnershipService } from './ownership/index.ts';
import { createMessageService } from './messages/index.ts';
import {
  createFailureLog,
  createHealthService,
  createMetrics,
  createRequestContext,
} from './ops/index.ts';
import { READS_TOPIC, createSharedState } from './replicas/index.ts';
import {
  createDiskStorage,
  createMediaProxyService,
  createS3Storage,
  createUploadService,
  type MediaStorage,
} from './media/index.ts';
import { createLiveHub } from './live/index.ts';
import {
  createPostInbox,
  createRemotePoller,
  createRemotePostStore,
  createRemoteProfileStore,
  createRetentionSweep,
  createSwarmCrawler,
  type CrawlerOptions,
  type PollerOptions,
  type RemoteContent,
  type RetentionOptions,
  type WireViews,
} from './remote-posts/index.ts';

/** Seams for tests and the swarm harness: time, and the network to peers. */
export interface NodeOverrides {
  clock?: Clock;
  transport?: PeerTransport;
  resolveHost?: ResolveHost;
  /** Peer request timeout (default 5 s); the test harness shortens it to model hung peers. */
  peerTimeoutMs?: number;
  /** Budget, cache and breaker of multi-peer reads (swarm feed, home timeline). */
  peerReads?: Partial<PeerReadOptions>;
  /** Where uploaded media go (default: S3 when configured, else `DATA_DIR/uploads`). */
  mediaStorage?: MediaStorage;
  /** What a relative DATA_DIR is relative to (default: the working directory). */
  baseDir?: string;
  /** Bounds of the origin-profile confirmations (queue, fetch budget, waiting time). */
  originConfirmation?: Partial<OriginConfirmationOptions>;
  /** How long a post's retry waits for the request holding its `Idempotency-Key` (default 10 s). */
  postKeyWaitMs?: number;
  /** Poller, crawler and retention settings beyond the configuration's (tests: small batches). */
  remoteContent?: {
    poller?: Partial<PollerOptions>;
    crawler?: Partial<CrawlerOptions>;
    retention?: Partial<RetentionOptions>;
  };
}

/** The background reads of remote content: poller, crawler, retention (docs/architecture.md). */
function remoteContentOf(
  deps: Omit<Parameters<typeof createRemotePoller>[0], 'options' | 'registry'> &
    Omit<Parameters<typeof createSwarmCrawler>[0], 'options' | 'registry' | 'limits'> & {
      config: NodeConfig;
      registry: Parameters<typeof createRemotePoller>[0]['registry'] &
        Parameters<typeof createSwarmCrawler>[0]['registry'];
      limits: Parameters<typeof createSwarmCrawler>[0]['limits'];
      metrics: Parameters<typeof createRetentionSweep>[0]['metrics'] &
        Parameters<typeof createRemotePoller>[0]['metrics'];
      overrides: NodeOverrides['remoteContent'];
    },
): RemoteContent {
  const { config, overrides, ...common } = deps;
  const settings = config.remoteContent;
  return {
    poller: createRemotePoller({ ...common, options: overrides?.poller }),
    crawler: createSwarmCrawler({
      ...common,
      options: { perMinute: settings.crawlPerMinute, ...overrides?.crawler },
    }),
    retention: createRetentionSweep({
      ...common,
      options: {
        keepPerAuthor: settings.keepPerAuthor,
        keepFollowedDays: settings.keepFollowedDays,
        keepOtherDays: settings.keepOtherDays,
        maxCopies: settings.maxCopies,
        ...overrides?.retention,
      },
    }),
    crawlPerMinute: overrides?.crawler?.perMinute ?? settings.crawlPerMinute,
  };
}

/** The media storage the configuration asks for (docs/deployment.md "Media storage"). */
export function mediaStorageFor(config: NodeConfig, baseDir = process.cwd()): MediaStorage {
  return config.s3
    ? createS3Storage(config.s3)
    : createDiskStorage(resolve(baseDir, config.dataDir, 'uploads'));
}

/** Wires a node over an open, migrated database (tests pass their own database here). */
export async function createNodeContext(
  deps: { config: NodeConfig; db: Db; logger: Logger } & NodeOverrides,
): Promise<NodeContext> {
  const { config, db, logger } = deps;
  const clock = deps.clock ?? systemClock;
  const keys = await loadOrCreateNodeKeys(db, logger);
  const vapid = await loadOrCreateVapidKeys(db, logger);
  const lifecycle = createLifecycle();
  const failures = createFailureLog({ logger });
  const metrics = createMetrics({ db, clock });
  const requestContext = createRequestContext();
  // What nearly every service is built from; each adds its own ports.
  const base = { config, db, clock, logger };
  const shared = createSharedState(base);
  const rawPeers = createPeerClient({
    config,
    keys,
    clock,
    logger,
    transport: deps.transport,
    resolveHost: deps.resolveHost,
    timeoutMs: deps.peerTimeoutMs,
    requestId: () => requestContext.current()?.requestId,
  });
  // Every POST goes out in the receiving peer's own profile (ours, or the origin's).
  const peerProfiles = createPeerProfiles({ db, peers: rawPeers, clock, logger });
  const peers = withPeerProfiles(rawPeers, { profiles: peerProfiles, keys, config });
  const swarm = createSwarmServices({ ...base, peers, keys, profiles: peerProfiles });
  const content = createContentService({
    db,
    clock,
    config,
    blockedDomains: () => swarm.registry.blockedDomains(),
  });
  const uploads = createUploadService({
    ...base,
    storage: deps.mediaStorage ?? mediaStorageFor(config, deps.baseDir),
  });
  // Shared by reads and actions: an action on a post just shown can use what was shown, and
  // drops the cached answers of the peer it changed something on.
  const seen = createSeenPosts({ db, clock, logger });
  const reader = createPeerReader({ peers, clock, logger, options: deps.peerReads });
  // Reads that page views cause (remote profiles and posts): deduplicated, failures remembered,
  // anonymous visitors on a budget (peers/visitor-fetch.ts).
  const visitors = createVisitorFetchGate({ peers, clock, logger });
  const reads = { ...base, peers, registry: swarm.registry, seen, visitors };
  const remotePosts = createRemotePostStore({
    db,
    clock,
    logger,
    invalidations: shared.invalidations,
  });
  const remoteProfiles = createRemoteProfileStore({
    db,
    clock,
    self: config.domain,
    posts: remotePosts,
  });
  const profiles = createProfileService({
    ...reads,
    handles: swarm.gossip,
    profiles: remoteProfiles,
  });
  const delivery = createDeliveryService({
    db,
    peers,
    clock,
    logger,
    registry: swarm.registry,
    metrics,
  });
  const live = createLiveHub({
    db,
    clock,
    logger,
    invalidations: shared.invalidations,
    lifecycle,
    options: { maxStreams: config.liveStreamsMax, maxPerUser: config.liveStreamsPerUser },
    domain: config.domain,
  });
  // App keys the person signs: the client API's actions are signed with them (docs/protocol.md).
  const appDelegations = createAppDelegations({ db, clock, self: config.domain });
  const actions = createActionServices({
    ...base,
    peers,
    delivery,
    uploads,
    reads: { seen, reader },
    delegations: appDelegations,
    postKeyWaitMs: deps.postKeyWaitMs,
  });
  const registryAdmin = createRegistryAdminService({ ...base, ...swarm });
  const moderation = createModerationServices({
    ...base,
    peers,
    delivery,
    posts: actions.posts,
    // The reports queue's port takes the refusal's sentence (moderation/report-model.ts).
    blockNode: async (domain, reason, createdById) => {
      const blocked = await registryAdmin.blockNode(domain, reason, createdById);
      return blocked.ok ? blocked : err(blocked.reason.message);
    },
    onChange: () => shared.invalidations.publish(READS_TOPIC),
  });
  // Origin-profile follows, mentions and replies wait for the sender's evidence (docs/protocol.md).
  const originConfirmation = deps.originConfirmation;
  const interactions = createInboundInteractionService({ ...base, peers, originConfirmation });
  const originConfirmations = createOriginConfirmationService({
    ...base,
    peers,
    limits: shared.limits,
    interactions,
    options: originConfirmation,
  });
  const inboundOwnership = createInboundOwnershipService({ ...base, peers, delivery });
  // Stored remote content: what the poller and the crawler read becomes the same views a page
  // built from the peer's answer, stored through the one store.
  const self = config.domain;
  const views: WireViews = {
    actor: (input) => actorView(input, self),
    profilePost: (post, author, domain) => profilePostToView(post, author, domain, self),
    timelinePost: (post, domain) => timelinePostToView(post, domain, self),
    singlePost: (post, domain) => singlePostToView(post, domain, self),
  };
  const remoteContent = remoteContentOf({
    ...base,
    reads: reader,
    views,
    store: remotePosts,
    profiles: remoteProfiles,
    registry: swarm.registry,
    limits: shared.limits,
    metrics,
    overrides: deps.remoteContent,
  });
  const threads = createThreadService({ ...reads, store: remotePosts });
  const ownership = createAccountOwnershipService({
    ...base,
    peers,
    delivery,
    posts: actions.posts,
    applyMove: inboundOwnership.move,
    limits: shared.limits,
    delegations: appDelegations,
  });
  return {
    config,
    db,
    logger,
    clock,
    lifecycle,
    limits: shared.limits,
    invalidations: shared.invalidations,
    keys,
    peers,
    nodeInfo: createNodeInfoService({ config, db, keys }),
    ...swarm,
    registryAdmin,
    interactions,
    originConfirmations,
    peerProfiles,
    nodeAuth: createNodeAuthService({ ...base, peers, profiles: peerProfiles }),
    adminTokens: createAdminTokenService({ db, config, clock }),
    content,
    feeds: createFeedService({ db, clock, config, registry: swarm.registry }),
    bookmarks: createBookmarkService({ db, clock, config, registry: swarm.registry }),
    lists: createListService({ db, clock, config, registry: swarm.registry }),
    remotePosts,
    remoteProfiles,
    postInbox: createPostInbox({
      ...base,
      peers,
      store: remotePosts,
    }),
    remoteContent,
    threads,
    clientReads: createClientReads({
      db,
      logger,
      config,
      registry: swarm.registry,
      threads,
    }),
    profiles,
    followLists: createFollowListService(reads),
    search: createSearchService({ db, config, profiles }),
    linkPreviews: createLinkPreviewService({ peers, clock, logger, limits: shared.limits }),
    notifications: createNotificationService({ db, clock, config }),
    push: {
      subscriptions: createPushSubscriptionService({
        db,
        config,
        vapidPublicKey: vapid.publicKey,
      }),
      sender: createPushSender({ ...base, peers, vapid }),
    },
    appAccounts: createAppAccountService({ db, config }),
    markers: createMarkerService({ db, clock }),
    delivery,
    actions,
    appDelegations,
    moderation,
    ownership,
    inboundOwnership,
    messages: createMessageService({ ...base, peers, delivery, registry: swarm.registry }),
    health: createHealthService({ db, lifecycle, failures }),
    metrics,
    requestContext,
    failures,
    media: createMediaProxyService({
      keys,
      peers,
      clock,
      logger,
      localPathOf: uploads.localPathOf,
    }),
    uploads,
    live,
    close: async () => {
      live.closeAll();
      await shared.close();
      await db.close();
    },
  };
}

/**
 * Opens the configured database, applies pending migrations (unless `migrate: false`, for
 * processes that are not in charge of the schema), then wires the node.
 */
export async function bootNode(
  config: NodeConfig,
  deps: {
    logger: Logger;
    migrate?: boolean;
    /** What a relative DATA_DIR or `pglite:` path is relative to (default: the working directory). */
    baseDir?: string;
  } & NodeOverrides,
): Promise<NodeContext> {
  const dbConfig = {
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    baseDir: deps.baseDir,
  };
  // Migrating opens the database too: a new embedded one is migrated before this process opens
  // it, in the child that creates it (its memory goes with the child).
  const db =
    deps.migrate === false
      ? await createDb(dbConfig)
      : (await createMigratedDb(dbConfig, { log: (line) => deps.logger.info(line) })).db;
  try {
    const node = await createNodeContext({ config, db, ...deps });
    if (config.demoContent) await createDemoContentService(node).seed();
    return node;
  } catch (error) {
    await db.close();
    throw error;
  }
}
