import {
  followBodySchema,
  mentionBodySchema,
  parseHandleAddress,
  replyBodySchema,
} from '@swarm/contract';
import type { OriginPendingEffect } from '@swarm/db';
import type { NodeConfig } from '../config.ts';
import type { Limits } from '../replicas/index.ts';
import type { PeerServiceDeps } from '../peers/service-deps.ts';
import type { InboundInteractionService } from './inbound-interaction.service.ts';
import type { InboundOptions } from './inbound-types.ts';
import {
  createOriginEvidence,
  type EvidenceClaim,
  type EvidenceOptions,
} from './origin-evidence.ts';
import { ORIGIN_CONFIRMATION, type OriginConfirmationOptions } from './inbound-types.ts';

// Confirming what origin-holds.ts held: each held follow, mention or reply is judged against the
// sender's own public data (origin-evidence.ts) and then applied as if it had just arrived, or
// dropped (docs/protocol.md "Peers of the origin profile", "Confirmed by the sender's evidence").

/** A batch's row is taken for this long (another replica leaves it alone meanwhile). */
const LEASE_MS = 60_000;
/** When evidence could not be read: the next look after 30 s, 2 min, then every 10 min. */
const RETRY_MS = [30_000, 120_000, 600_000] as const;

export interface ConfirmationReport {
  /** Held effects looked at. */
  looked: number;
  applied: number;
  /** The sender's data said no. */
  refuted: number;
  /** No answer for `maxPendingMs`. */
  expired: number;
  /** Kept for a later look (sender unreachable, or its fetch budget spent). */
  waiting: number;
}

export interface OriginConfirmationService {
  /** Judges the held effects that are due on the node's clock (one batch). */
  processDue(): Promise<ConfirmationReport>;
}

export function createOriginConfirmationService(
  deps: PeerServiceDeps & {
    config: Pick<NodeConfig, 'domain'>;
    limits: Pick<Limits, 'take'>;
    interactions: Pick<InboundInteractionService, 'follow' | 'mention' | 'reply'>;
    options?: Partial<OriginConfirmationOptions & EvidenceOptions>;
  },
): OriginConfirmationService {
  const { db, clock, logger, limits, interactions } = deps;
  const options = { ...ORIGIN_CONFIRMATION, ...deps.options };
  const evidence = createOriginEvidence({ ...deps, options: deps.options });
  const pending = db.prisma.originPendingEffect;
  const budget = { points: options.fetchesPerNodePerMinute, windowMs: 60_000 };

  /** What the held body claims; undefined for a row that no longer parses (dropped). */
  function claimOf(row: OriginPendingEffect): EvidenceClaim | undefined {
    switch (row.kind) {
      case 'follow': {
        const body = followBodySchema.safeParse(row.body);
        if (!body.success) return undefined;
        const { follow, targetHandle } = body.data;
        return { kind: 'follow', actor: follow.followerHandle, target: targetHandle };
      }
      case 'mention': {
        const body = mentionBodySchema.safeParse(row.body);
        if (!body.success) return undefined;
        const { mention, mentionedHandle } = body.data;
        const { actorHandle: actor, postId } = mention;
        return { kind: 'mention', actor, mentioned: mentionedHandle, postId };
      }
      case 'reply': {
        const body = replyBodySchema.safeParse(row.body);
        if (!body.success) return undefined;
        const { author, id, content } = body.data.reply;
        const address = author.handle.includes('@') ? parseHandleAddress(author.handle) : null;
        const actor = address?.ok ? address.value.handle : author.handle;
        return { kind: 'reply', actor, postId: id, content };
      }
      default:
        return undefined;
    }
  }

  /** Applies a confirmed effect through the receiver, as if it had just come (checks again). */
  async function apply(row: OriginPendingEffect) {
    const confirmed: InboundOptions = { profile: 'origin', confirmed: true };
    const { sourceDomain: source, rawBody } = row;
    const outcome =
      row.kind === 'follow'
        ? await interactions.follow(source, followBodySchema.parse(row.body), rawBody, confirmed)
        : row.kind === 'mention'
          ? await interactions.mention(
              source,
              mentionBodySchema.parse(row.body),
              rawBody,
              confirmed,
            )
          : await interactions.reply(source, replyBodySchema.parse(row.body), rawBody, {
              ...confirmed,
              ...(row.replyId ? { replyId: row.replyId } : {}),
            });
    if (!outcome.ok) {
      logger.info(
        { source, kind: row.kind, reason: outcome.reason.message },
        'origin effect refused',
      );
    }
  }

  async function drop(row: OriginPendingEffect, why: string) {
    await pending.deleteMany({ where: { id: row.id } });
    logger.info({ source: row.sourceDomain, kind: row.kind, key: row.dedupKey }, why);
  }

  return {
    async processDue() {
      const report: ConfirmationReport = {
        looked: 0,
        applied: 0,
        refuted: 0,
        expired: 0,
        waiting: 0,
      };
      const now = clock.now();
      const rows = await pending.findMany({
        where: { nextAttemptAt: { lte: now } },
        orderBy: { nextAttemptAt: 'asc' },
        take: options.batchSize,
      });
      // A sender that did not answer is not asked again in this batch.
      const down = new Set<string>();
      for (const row of rows) {
        const taken = await pending.updateMany({
          where: { id: row.id, nextAttemptAt: row.nextAttemptAt },
          data: { nextAttemptAt: new Date(now.getTime() + LEASE_MS), attempts: { increment: 1 } },
        });
        if (taken.count === 0) continue;
        report.looked++;
        const claim = claimOf(row);
        if (!claim) {
          await drop(row, 'origin effect dropped: unreadable');
          report.refuted++;
          continue;
        }
        const domain = row.sourceDomain;
        const verdict = await evidence.judge(domain, claim, row.receivedAt, async () => {
          if (down.has(domain)) return false;
          return (await limits.take('origin-evidence', domain, budget)).ok;
        });
        if (verdict === 'confirmed') {
          await apply(row);
          await pending.deleteMany({ where: { id: row.id } });
          report.applied++;
        } else if (verdict === 'refuted') {
          await drop(row, 'origin effect dropped: the sender’s data does not confirm it');
          report.refuted++;
        } else if (now.getTime() - row.receivedAt.getTime() >= options.maxPendingMs) {
          await drop(row, 'origin effect dropped: no evidence in time');
          report.expired++;
        } else {
          down.add(domain);
          const wait = RETRY_MS[Math.min(row.attempts, RETRY_MS.length - 1)] ?? 600_000;
          await pending.updateMany({
            where: { id: row.id },
            data: { nextAttemptAt: new Date(now.getTime() + wait) },
          });
          report.waiting++;
        }
      }
      return report;
    },
  };
}
