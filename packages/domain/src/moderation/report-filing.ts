import { z } from 'zod';
import {
  REPORT_CATEGORIES,
  REPORT_COMMENT_MAX,
  REPORT_POSTS_MAX,
  SWARM_PATHS,
  formatSwarmPostId,
  nodeInfoSchema,
  ok,
  parseHandleAddress,
  parsePeerSinglePost,
  parseSwarmPostId,
  type ForwardedReportBody,
  type ReportCategory,
  type Result,
} from '@swarm/contract';
import { commitIfOk, refuse, type Refusal } from '../refusal.ts';
import { describePeerError } from '../peers/index.ts';
import { parsePersonAddress } from '../views/addresses.ts';
import { isUuid } from './registrations.service.ts';
import { EXCERPT_MAX } from './report-views.ts';
import {
  REPORTS_PER_HOUR,
  type FiledReport,
  type ForwardState,
  type ReportInput,
  type ReportServiceDeps,
} from './report-model.ts';

/**
 * Reports filed by people of this node, and their forwarding to the node that hosts the content
 * (node-signed `POST /api/swarm/reports`, capability `reports`, without the reporter's identity).
 * The forward is a row of the durable outbox, written with the report in one transaction and
 * attempted at once: a node that is down gets it when it is back (the outbox's retry schedule),
 * and the outbox's final outcome is written back to the report (`ForwardState`).
 */

/** A reported post: its id on its node, its `swarm:` id, and its text when reported. */
interface PostRef {
  postId: string;
  postApId: string;
  excerpt: string | null;
}

interface Target {
  targetAddress: string;
  domain: string;
  handle: string;
  /** The posts reported (none: the person). */
  posts: PostRef[];
}

export function createReportFiling(
  deps: Pick<ReportServiceDeps, 'db' | 'clock' | 'config' | 'peers' | 'delivery'>,
) {
  const { db, clock, config, peers, delivery } = deps;
  const { prisma } = db;
  const self = config.domain;

  function checkCategory(category: string, comment: string | undefined) {
    if (!REPORT_CATEGORIES.includes(category as ReportCategory)) {
      return refuse('INVALID_REQUEST', `The reason is one of: ${REPORT_CATEGORIES.join(', ')}.`);
    }
    if ((comment ?? '').length > REPORT_COMMENT_MAX) {
      return refuse(
        'INVALID_REQUEST',
        `The comment may have at most ${REPORT_COMMENT_MAX} characters.`,
      );
    }
    return null;
  }

  /** The copy this node keeps of a remote post (made when someone here saw or acted on it). */
  async function storedCopy(domain: string, postId: string): Promise<Target | null> {
    const apId = formatSwarmPostId({ domain, postId });
    const copy = await prisma.post.findUnique({
      where: { apId },
      select: { content: true, remoteAuthor: { select: { handle: true, nodeDomain: true } } },
    });
    if (!copy?.remoteAuthor || copy.remoteAuthor.nodeDomain !== domain) return null;
    const handle = copy.remoteAuthor.handle.split('@')[0]!;
    return {
      targetAddress: `${handle}@${domain}`,
      domain,
      handle,
      posts: [{ postId, postApId: apId, excerpt: copy.content.slice(0, EXCERPT_MAX) }],
    };
  }

  /** One reported post: its author, its ids and excerpt, and the node hosting it. */
  async function resolvePost(input: string): Promise<Result<Target, Refusal>> {
    const raw = input.trim();
    if (isUuid(raw)) {
      const post = await prisma.post.findFirst({
        where: { id: raw, apId: null, authorId: { not: null } },
        select: { id: true, content: true, author: { select: { handle: true } } },
      });
      if (!post?.author) return refuse('NOT_FOUND', `There is no post ${raw}.`);
      return ok({
        targetAddress: `${post.author.handle}@${self}`,
        domain: self,
        handle: post.author.handle,
        posts: [
          {
            postId: post.id,
            postApId: formatSwarmPostId({ domain: self, postId: post.id }),
            excerpt: post.content.slice(0, EXCERPT_MAX),
          },
        ],
      });
    }
    const swarmId = parseSwarmPostId(raw);
    if (!swarmId.ok) return refuse('INVALID_REQUEST', `Not a post id: ${swarmId.reason}.`);
    const { domain, postId } = swarmId.value;
    if (domain === self) return resolvePost(postId);
    // The post as its node serves it: who wrote it, and what it said.
    const answer = await peers.getJson(domain, SWARM_PATHS.post(postId), z.unknown());
    if (!answer.ok && answer.reason.kind === 'http' && answer.reason.status === 404) {
      return refuse('NOT_FOUND', `${domain} has no post ${postId}.`);
    }
    if (!answer.ok) {
      // The node is down: the copy seen here names the author, and the outbox sends later.
      const copy = await storedCopy(domain, postId);
      if (copy) return ok(copy);
      return refuse(
        'PEER_UNAVAILABLE',
        `The post's node did not answer: ${describePeerError(answer.reason)}.`,
      );
    }
    const post = parsePeerSinglePost(answer.value, domain);
    if (!post.ok) return refuse('NOT_FOUND', `${domain} has no post ${postId}.`);
    const authorHandle = post.value.author.handle.split('@')[0]!;
    return ok({
      targetAddress: `${authorHandle}@${domain}`,
      domain,
      handle: authorHandle,
      posts: [
        {
          postId,
          postApId: formatSwarmPostId({ domain, postId }),
          excerpt: post.value.content.slice(0, EXCERPT_MAX),
        },
      ],
    });
  }

  /**
   * What is reported: the person, or posts of one person (each read as `resolvePost` reads it,
   * at the same time: a remote node is asked once per post) and the node hosting them.
   */
  async function resolveTarget(input: ReportInput): Promise<Result<Target, Refusal>> {
    const named = (input.postIds ?? (input.postId !== undefined ? [input.postId] : []))
      .map((id) => id.trim())
      .filter((id) => id !== '');
    const ids = [...new Set(named)];
    if (ids.length > REPORT_POSTS_MAX) {
      return refuse('INVALID_REQUEST', `A report may name at most ${REPORT_POSTS_MAX} posts.`);
    }
    if (ids.length > 0) {
      const each = await Promise.all(ids.map(resolvePost));
      const targets: Target[] = [];
      for (const one of each) {
        if (!one.ok) return one;
        targets.push(one.value);
      }
      const first = targets[0]!;
      const author = first.targetAddress.toLowerCase();
      if (targets.some((t) => t.targetAddress.toLowerCase() !== author)) {
        return refuse('INVALID_REQUEST', 'The posts of one report must all be by one person.');
      }
      // A local post named by its id and by its `swarm:` id is one post.
      const posts = [...new Map(targets.map((t) => [t.posts[0]!.postApId, t.posts[0]!])).values()];
      return ok({ ...first, posts });
    }
    const address = parsePersonAddress(input.target ?? '', self);
    if (!address.ok) return refuse('INVALID_REQUEST', `Not a valid address: ${address.reason}.`);
    const parsed = parseHandleAddress(address.value);
    if (!parsed.ok) return refuse('INVALID_REQUEST', `Not a valid address: ${parsed.reason}.`);
    const { handle, domain } = parsed.value;
    if (domain === self) {
      const user = await prisma.user.findUnique({ where: { handle }, select: { id: true } });
      if (!user) return refuse('NOT_FOUND', `There is no user ${handle} on this node.`);
    }
    return ok({
      targetAddress: address.value,
      domain,
      handle,
      posts: [],
    });
  }

  /**
   * Whether the node takes forwarded reports: its stored capabilities, else its info asked once.
   * Unknown (null) when it cannot be asked now: the report is queued and the outbox finds out
   * (a node without the endpoint refuses it, which is final).
   */
  async function supportsReports(domain: string): Promise<boolean | null> {
    const known = await prisma.swarmNode.findUnique({
      where: { domain },
      select: { capabilities: true },
    });
    let listed: string[] = [];
    try {
      const value: unknown = JSON.parse(known?.capabilities ?? '[]');
      if (Array.isArray(value)) listed = value.filter((v): v is string => typeof v === 'string');
    } catch {
      listed = [];
    }
    if (listed.includes('reports')) return true;
    const info = await peers.getJson(domain, SWARM_PATHS.info, nodeInfoSchema);
    if (!info.ok) return null;
    return info.value.capabilities.includes('reports');
  }

  function forwardBody(
    reportId: string,
    target: Target,
    category: string,
    comment: string,
  ): ForwardedReportBody {
    const [first, ...more] = target.posts;
    return {
      report: {
        id: reportId,
        targetHandle: target.handle,
        ...(first ? { postId: first.postId } : {}),
        // Every post when there are several; a node that reads `postId` alone still gets the first.
        ...(more.length > 0 ? { postIds: target.posts.map((p) => p.postId) } : {}),
        category: category as ReportCategory,
        comment,
        reporterNodeDomain: self,
        timestamp: clock.now().toISOString(),
      },
    };
  }

  async function file(
    reporterId: string,
    input: ReportInput,
  ): Promise<Result<FiledReport, Refusal>> {
    const bad = checkCategory(input.category, input.comment);
    if (bad) return bad;
    const reporter = await prisma.user.findUnique({
      where: { id: reporterId },
      select: { id: true, handle: true },
    });
    if (!reporter)
      return refuse('UNAUTHORIZED', 'Your account does not exist any more: sign in again.');
    const since = new Date(clock.now().getTime() - 3_600_000);
    const recent = await prisma.report.count({
      where: { reporterId, createdAt: { gte: since } },
    });
    if (recent >= REPORTS_PER_HOUR) {
      return refuse(
        'INVALID_REQUEST',
        `You can file at most ${REPORTS_PER_HOUR} reports an hour; try again later.`,
      );
    }
    const target = await resolveTarget(input);
    if (!target.ok) return target;
    if (target.value.targetAddress.toLowerCase() === `${reporter.handle}@${self}`) {
      return refuse('INVALID_REQUEST', 'You cannot report yourself.');
    }
    const comment = (input.comment ?? '').trim();
    const remote = target.value.domain !== self && input.forward !== false;
    const supported = remote ? await supportsReports(target.value.domain) : null;
    const forwardState: ForwardState | null = !remote
      ? null
      : supported === false
        ? 'unsupported'
        : 'pending';
    // The report and its forward are one write: never a report whose forward was lost.
    const [first, ...more] = target.value.posts;
    const written = await commitIfOk(db, async (tx) => {
      const row = await tx.report.create({
        data: {
          reporterId,
          targetAddress: target.value.targetAddress,
          postId: first?.postId ?? null,
          postApId: first?.postApId ?? null,
          postExcerpt: first?.excerpt ?? null,
          morePosts: {
            create: more.map((post, i) => ({
              position: i + 1,
              postId: post.postId,
              postApId: post.postApId,
              postExcerpt: post.excerpt,
            })),
          },
          category: input.category,
          comment,
          forwardState,
          createdAt: clock.now(),
        },
        select: { id: true },
      });
      const deliveryId =
        forwardState === 'pending'
          ? await delivery.enqueue(tx, {
              targetDomain: target.value.domain,
              kind: 'report',
              body: { ...forwardBody(row.id, target.value, input.category, comment) },
              // The outbox writes its final outcome back to the report by this id.
              interactionId: row.id,
              createdById: reporterId,
            })
          : null;
      return ok({ id: row.id, deliveryId });
    });
    const { id, deliveryId } = written.value;
    if (deliveryId === null) return ok({ id, forwardState });
    await delivery.attempt([deliveryId]);
    const now = await prisma.report.findUniqueOrThrow({
      where: { id },
      select: { forwardState: true },
    });
    return ok({ id, forwardState: now.forwardState as ForwardState });
  }

  return { file };
}
