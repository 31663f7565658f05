import { randomUUID } from 'node:crypto';
import {
  err,
  formatSwarmPostId,
  ok,
  type FollowBody,
  type MentionBody,
  type ReplyBody,
} from '@swarm/contract';
import type { Prisma } from '@swarm/db';
import type { createInboundEffects } from './inbound-effects.ts';
import type {
  InboundInteractionDeps,
  InboundOptions,
  InteractionOutcome,
  ReplyOutcome,
  OriginConfirmationOptions,
} from './inbound-types.ts';
import { ORIGIN_CONFIRMATION } from './inbound-types.ts';
import type { Actor } from './inbound-verification.ts';

// Receiving a follow, mention or reply from a peer of the origin profile: after the usual checks
// it is held, not applied, until the sender's own public data confirms it (origin-confirmation
// .service.ts; docs/protocol.md "Peers of the origin profile", "Confirmed by the sender's
// evidence"). Its body binds no target node, so a body signed for another node would otherwise
// act here. The sender gets its usual answer at once; nothing shows until it is confirmed.

/** The kinds held for evidence. */
export type HeldKind = 'follow' | 'mention' | 'reply';

/** True when an inbound request must be held: the origin profile, not yet confirmed. */
export const holdsForEvidence = (options: InboundOptions) =>
  options.profile === 'origin' && !options.confirmed;

type Effects = Pick<
  ReturnType<typeof createInboundEffects>,
  'inTransaction' | 'findUser' | 'findPost' | 'refuseIfBlocked'
>;

export function createOriginHolds(
  deps: Pick<InboundInteractionDeps, 'db' | 'clock' | 'logger'> & {
    effects: Effects;
    options?: Partial<OriginConfirmationOptions>;
  },
) {
  const { db, clock, logger, effects } = deps;
  const options = { ...ORIGIN_CONFIRMATION, ...deps.options };
  const pending = db.prisma.originPendingEffect;

  const full = (sourceDomain: string) =>
    err({
      code: 'RATE_LIMITED' as const,
      message: `Too many interactions from ${sourceDomain} are waiting for confirmation; try again later.`,
      details: { retryAfter: 60 },
    });

  /** Stores the held effect (once per key); false when the bounds say no. */
  async function hold(input: {
    kind: HeldKind;
    sourceDomain: string;
    dedupKey: string;
    body: unknown;
    rawBody: unknown;
    replyId?: string;
  }): Promise<boolean> {
    const [ofNode, total] = await Promise.all([
      pending.count({ where: { sourceDomain: input.sourceDomain } }),
      pending.count(),
    ]);
    if (ofNode >= options.maxPendingPerNode || total >= options.maxPendingTotal) {
      logger.warn({ source: input.sourceDomain, ofNode, total }, 'origin effects: queue full');
      return false;
    }
    const now = clock.now();
    await pending.createMany({
      data: [
        {
          sourceDomain: input.sourceDomain,
          kind: input.kind,
          dedupKey: input.dedupKey,
          body: input.body as Prisma.InputJsonValue,
          rawBody: (input.rawBody ?? {}) as Prisma.InputJsonValue,
          replyId: input.replyId ?? null,
          receivedAt: now,
          nextAttemptAt: new Date(now.getTime() + options.firstAttemptDelayMs),
        },
      ],
      skipDuplicates: true, // the sender's retry of a held effect
    });
    return true;
  }

  /** A follow or a mention: already applied (ledger), refused now (404, 403), or held. */
  async function holdOnUser(
    kind: 'follow' | 'mention',
    sourceDomain: string,
    target: { handle: string; actor: Actor; interactionId: string },
    body: unknown,
    rawBody: unknown,
    message: string,
  ): Promise<InteractionOutcome> {
    const seen = await db.prisma.inboundInteraction.findUnique({
      where: {
        actorNodeDomain_interactionId: {
          actorNodeDomain: target.actor.domain,
          interactionId: target.interactionId,
        },
      },
      select: { kind: true },
    });
    if (seen) return ok({ message });
    const checked = await effects.inTransaction(async (tx) => {
      const user = await effects.findUser(tx, target.handle);
      await effects.refuseIfBlocked(tx, user.id, target.actor);
    });
    if (!checked.ok) return checked;
    const held = await hold({ kind, sourceDomain, dedupKey: target.interactionId, body, rawBody });
    return held ? ok({ message }) : full(sourceDomain);
  }

  return {
    follow(
      sourceDomain: string,
      body: FollowBody,
      rawBody: unknown,
      actor: Actor,
      message: string,
    ) {
      const { targetHandle: handle, follow } = body;
      const target = { handle, actor, interactionId: follow.interactionId };
      return holdOnUser('follow', sourceDomain, target, body, rawBody, message);
    },

    mention(
      sourceDomain: string,
      body: MentionBody,
      rawBody: unknown,
      actor: Actor,
      message: string,
    ) {
      const { mentionedHandle: handle, mention } = body;
      const target = { handle, actor, interactionId: mention.interactionId };
      return holdOnUser('mention', sourceDomain, target, body, rawBody, message);
    },

    /** A reply: answered with the id it will have here (or has, when it is stored already). */
    async reply(
      sourceDomain: string,
      body: ReplyBody,
      rawBody: unknown,
      actor: Actor,
    ): Promise<ReplyOutcome> {
      const { reply } = body;
      const apId = formatSwarmPostId({ domain: reply.nodeDomain, postId: reply.id });
      const stored = await db.prisma.post.findUnique({ where: { apId }, select: { id: true } });
      if (stored) return ok({ replyId: stored.id });
      const key = { sourceDomain, kind: 'reply', dedupKey: reply.id };
      const waiting = await pending.findUnique({
        where: { sourceDomain_kind_dedupKey: key },
        select: { replyId: true },
      });
      if (waiting?.replyId) return ok({ replyId: waiting.replyId });
      const checked = await effects.inTransaction(async (tx) => {
        const parent = await effects.findPost(tx, body.postId);
        await effects.refuseIfBlocked(tx, parent.authorId, actor);
      });
      if (!checked.ok) return checked;
      const replyId = randomUUID();
      if (!(await hold({ ...key, kind: 'reply', body, rawBody, replyId }))) {
        return full(sourceDomain);
      }
      // A concurrent copy may have been held first: answer the id it holds.
      const held = await pending.findUnique({
        where: { sourceDomain_kind_dedupKey: key },
        select: { replyId: true },
      });
      return ok({ replyId: held?.replyId ?? replyId });
    },
  };
}

export type OriginHolds = ReturnType<typeof createOriginHolds>;
