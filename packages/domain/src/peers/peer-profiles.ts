import { z } from 'zod';
import {
  SWARM_PATHS,
  SWARM_PROFILE_MARKER,
  isOriginWritePath,
  originNodeKeySchema,
  signOriginBody,
  signOriginPayload,
  toOriginBody,
  type ProtocolProfile,
} from '@swarm/contract';
import type { Db } from '@swarm/db';
import type { Clock } from '../clock.ts';
import type { NodeConfig } from '../config.ts';
import type { Logger } from '../logger.ts';
import type { NodeKeys } from '../node-keys.service.ts';
import type { PeerClient, PeerPostOptions, PeerResult } from './peer-client.ts';
import { isRefusal } from './peer-errors.ts';
import { createAuditService } from '../ops/audit.service.ts';
import { learnProtocolProfileSql, setProtocolProfileSql } from '../persistence/registry.sql.ts';
import { importNodeKey } from './key-cache.ts';

// Which profile of the interface each peer speaks (docs/protocol.md "Peers of the origin
// profile"), and the outbound side of speaking to each in its own: our header signatures, or the
// origin's body signatures over only what its rules accept.

export interface PeerProfiles {
  /** The peer's profile as recorded (memory, then the registry); undefined when not known yet. */
  known(domain: string): Promise<ProtocolProfile | undefined>;
  /** Detects from what the peer serves: our marker in its info, else a key at `GET /api/node`. */
  detect(domain: string): Promise<ProtocolProfile | undefined>;
  /**
   * Records what a verified request or a probe showed, only where no profile is recorded yet:
   * a request never relabels a peer (docs/security.md "What each kind of peer can forge").
   */
  record(domain: string, profile: ProtocolProfile): Promise<void>;
  /**
   * A probe's info showed our marker (or not): record ours, or detect when unknown. A peer
   * recorded as origin whose own info now carries the marker (and the key pinned for it) is
   * relabelled ours, in the sync log and the audit log; the other way takes an operator.
   */
  noteInfo(
    domain: string,
    info: { protocolProfile?: string | undefined; publicKey?: string | undefined },
  ): Promise<void>;
  /**
   * The registry just wrote the node's row: store a profile learnt before the row existed
   * (detected right before a first announce, for instance). Usually no query.
   */
  persist(domain: string): Promise<void>;
  /** An operator reset the peer's pin and profile: forget what this process remembers. */
  forget(domain: string): void;
}

/** How long a detection (or a recorded value) is kept in memory before the database is read again. */
const MEMORY_MS = 10 * 60_000;
const MEMORY_MAX = 5_000;

const markerSchema = z.object({ protocolProfile: z.string().optional() });

export function createPeerProfiles(deps: {
  db: Db;
  peers: Pick<PeerClient, 'getJson'>;
  clock: Clock;
  logger: Logger;
}): PeerProfiles {
  const { prisma } = deps.db;
  const audit = createAuditService(deps);
  /** `stored`: the registry row is known to hold it (else `persist` writes it once there is one). */
  const memory = new Map<string, { profile: ProtocolProfile; at: number; stored: boolean }>();
  const inFlight = new Map<string, Promise<ProtocolProfile | undefined>>();

  const remember = (domain: string, profile: ProtocolProfile, stored: boolean) => {
    if (memory.size >= MEMORY_MAX) memory.clear();
    memory.set(domain, { profile, at: deps.clock.now().getTime(), stored });
  };

  /** What this process remembers of `domain`, while it is recent enough to go by. */
  const recent = (domain: string) => {
    const cached = memory.get(domain);
    return cached && deps.clock.now().getTime() - cached.at < MEMORY_MS ? cached : undefined;
  };

  async function record(domain: string, profile: ProtocolProfile) {
    if (recent(domain)?.stored) return; // recorded already: a request does not relabel
    await recordNow(domain, profile);
  }

  /** `record` without trusting memory (the row was just read empty, an operator reset it). */
  async function recordNow(domain: string, profile: ProtocolProfile) {
    if ((await learn(domain, profile)) > 0) return remember(domain, profile, true);
    // Recorded meanwhile (keep that one), or no row yet (`persist` writes it once there is one).
    const row = await readRow(domain);
    const recorded = profileOf(row?.protocolProfile);
    remember(domain, recorded ?? profile, recorded !== undefined);
  }

  async function persist(domain: string) {
    const known = memory.get(domain);
    if (!known || known.stored) return;
    known.stored = (await learn(domain, known.profile)) > 0;
  }

  /**
   * Raw SQL: Prisma would bump updated_at, and a node's change time is what gossip pages by
   * (`since`); how we speak to a peer is our own business, not a change to gossip. Only where
   * nothing is recorded: only the peer's info or an operator change a recorded profile.
   */
  function learn(domain: string, profile: ProtocolProfile): Promise<number> {
    return prisma.$executeRaw(learnProtocolProfileSql(domain, profile));
  }

  function readRow(domain: string) {
    return prisma.swarmNode.findUnique({
      where: { domain },
      select: { protocolProfile: true, publicKey: true, keyPinnedAt: true },
    });
  }

  async function detectUncached(domain: string): Promise<ProtocolProfile | undefined> {
    const info = await deps.peers.getJson(domain, SWARM_PATHS.info, markerSchema);
    if (info.ok && info.value.protocolProfile === SWARM_PROFILE_MARKER) return 'swarm';
    // Down (or hung): ask again next time rather than wait on a second request now.
    if (!info.ok && (info.reason.kind === 'timeout' || info.reason.kind === 'unreachable')) {
      return undefined;
    }
    const node = await deps.peers.getJson(domain, '/api/node', originNodeKeySchema);
    if (node.ok) return 'origin';
    // Neither: a node of our profile from before the marker, or a peer we could not reach.
    return info.ok ? 'swarm' : undefined;
  }

  async function detect(domain: string): Promise<ProtocolProfile | undefined> {
    let pending = inFlight.get(domain);
    if (!pending) {
      pending = detectUncached(domain).finally(() => inFlight.delete(domain));
      inFlight.set(domain, pending);
    }
    const profile = await pending;
    if (profile) {
      await recordNow(domain, profile);
      deps.logger.debug({ peer: domain, profile }, 'peer profile detected');
    }
    return profile;
  }

  async function known(domain: string): Promise<ProtocolProfile | undefined> {
    const cached = recent(domain);
    if (cached) return cached.profile;
    const recorded = profileOf((await readRow(domain))?.protocolProfile);
    if (recorded) remember(domain, recorded, true);
    return recorded;
  }

  async function noteInfo(
    domain: string,
    info: { protocolProfile?: string | undefined; publicKey?: string | undefined },
  ) {
    const cached = recent(domain);
    const marked = info.protocolProfile === SWARM_PROFILE_MARKER;
    if (marked && cached?.stored && cached.profile === 'swarm') return;
    const row = await readRow(domain);
    if (!row || row.protocolProfile === null) {
      // Unknown: ask once (a node of ours from before the marker stays `swarm` without asking again).
      if (marked) await recordNow(domain, 'swarm');
      else if (row) await detect(domain);
      return;
    }
    const recorded = profileOf(row.protocolProfile);
    if (marked && recorded === 'origin') await relabelOurs(domain, row, info.publicKey);
    else if (recorded) remember(domain, recorded, true);
  }

  /**
   * A peer recorded as origin now serves our marker in its own info: relabelled ours when that
   * info names the key pinned for it (else whoever answers for the domain now is not the node we
   * pinned: the operator decides). Logged in the sync log and the audit log.
   */
  async function relabelOurs(
    domain: string,
    row: { publicKey: string | null; keyPinnedAt: Date | null },
    published: string | undefined,
  ) {
    if (row.keyPinnedAt && row.publicKey) {
      const [pinned, presented] = await Promise.all([
        importNodeKey(row.publicKey),
        published ? importNodeKey(published) : undefined,
      ]);
      if (!pinned.ok || !presented?.ok || pinned.value.pem !== presented.value.pem) {
        deps.logger.warn(
          { peer: domain },
          'peer recorded as origin serves our marker with another key; profile unchanged',
        );
        return;
      }
    }
    const now = deps.clock.now();
    const message = 'profile origin → swarm: its node info now carries our marker';
    await prisma.$transaction(async (tx) => {
      await tx.$executeRaw(setProtocolProfileSql(domain, 'swarm'));
      await tx.swarmSyncLog.create({
        data: {
          remoteDomain: domain,
          direction: 'pull',
          success: true,
          errorMessage: message,
          durationMs: 0,
          createdAt: now,
        },
      });
      await audit.record(
        {
          actor: 'system',
          action: 'node.profile',
          target: domain,
          reason: message,
          details: { from: 'origin', to: 'swarm' },
        },
        tx,
      );
    });
    remember(domain, 'swarm', true);
    deps.logger.warn({ peer: domain, from: 'origin', to: 'swarm' }, 'peer profile changed');
  }

  function forget(domain: string) {
    memory.delete(domain);
  }

  return { known, detect, record, noteInfo, persist, forget };
}

function profileOf(value: string | null | undefined): ProtocolProfile | undefined {
  return value === 'swarm' || value === 'origin' ? value : undefined;
}

/** What an origin node answers to a reply: no `replyId` (docs/origin-profile.md §4). */
const originReplyAnswerSchema = z.looseObject({ success: z.literal(true) });

/**
 * The peer client every service uses: to a peer of our profile exactly `inner`; to a peer of the
 * origin profile, POSTs reshaped to what its rules accept and signed its way (body `signature`,
 * or `X-Swarm-Source-Domain` + `X-Swarm-Signature` on replies), without our headers. Requests
 * the origin profile has no place for (direct messages) are not sent.
 */
export function withPeerProfiles(
  inner: PeerClient,
  deps: {
    profiles: PeerProfiles;
    keys: Pick<NodeKeys, 'privateKey'>;
    config: Pick<NodeConfig, 'domain'>;
  },
): PeerClient {
  const client: PeerClient = {
    getBytes: inner.getBytes,
    postBytes: inner.postBytes,
    async getJson(domain, pathWithQuery, schema, options) {
      const answer = await inner.getJson(domain, pathWithQuery, schema, options);
      // A successful probe of a peer's info tells its profile (our marker), or prompts detection.
      if (answer.ok && pathWithQuery === SWARM_PATHS.info) {
        const value = answer.value as { protocolProfile?: unknown; publicKey?: unknown };
        const text = (member: unknown) => (typeof member === 'string' ? member : undefined);
        await deps.profiles.noteInfo(domain, {
          protocolProfile: text(value.protocolProfile),
          publicKey: text(value.publicKey),
        });
      }
      return answer;
    },
    async postJson(domain, path, body, schema, options: PeerPostOptions = {}) {
      if (options.sign === false) return inner.postJson(domain, path, body, schema, options);
      const profile = await deps.profiles.known(domain);
      if (profile === 'origin') return sendOrigin(domain, path, body, schema, options);
      const answer = await inner.postJson(domain, path, body, schema, options);
      // It took our header signature: it speaks our profile (origin nodes never accept it).
      if (profile === undefined && answer.ok) await deps.profiles.record(domain, 'swarm');
      // Not known yet and refused: a peer of the origin profile refuses our headers-only
      // signature (its rules want a body `signature`). Find out, and if so speak its way. A
      // peer of ours costs nothing extra: its profile is learnt from its info when probed.
      if (profile === undefined && !answer.ok && isRefusal(answer.reason)) {
        if ((await deps.profiles.detect(domain)) === 'origin') {
          return sendOrigin(domain, path, body, schema, options);
        }
      }
      return answer;
    },
  };
  return client;

  async function sendOrigin<S extends z.ZodType>(
    domain: string,
    path: string,
    body: unknown,
    schema: S,
    options: PeerPostOptions,
  ): Promise<PeerResult<z.output<S>>> {
    if (!isOriginWritePath(path)) {
      return {
        ok: false,
        ms: 0,
        reason: {
          kind: 'unsupported',
          domain,
          reason: `${domain} speaks the origin profile, which has no ${path}`,
        },
      };
    }
    const shaped = toOriginBody(path, body) ?? {};
    if (path === SWARM_PATHS.replies) {
      const signature = await signOriginPayload(deps.keys.privateKey, shaped);
      const answer = await inner.postJson(domain, path, shaped, originReplyAnswerSchema, {
        ...options,
        sign: false,
        headers: {
          'X-Swarm-Source-Domain': deps.config.domain,
          'X-Swarm-Signature': signature,
        },
      });
      return answer as PeerResult<z.output<S>>;
    }
    const signed = await signOriginBody(deps.keys.privateKey, shaped);
    return inner.postJson(domain, path, signed, schema, { ...options, sign: false });
  }
}
