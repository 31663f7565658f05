import {
  SWARM_PATHS,
  parsePeerSinglePost,
  peerFollowingResponseSchema,
  type SinglePost,
} from '@swarm/contract';
import { z } from 'zod';
import type { Clock } from '../clock.ts';
import type { NodeConfig } from '../config.ts';
import { isRefusal, type PeerClient, type PeerResult } from '../peers/index.ts';

// What the sender's own public data says about a follow, mention or reply an origin-profile node
// signed (docs/protocol.md "Peers of the origin profile", "Confirmed by the sender's evidence"):
// its body names no target node, so the same signed body is valid at every node; the sender's
// `following` list and its posts are what tie it to us.

/** The verdict on one held effect. `unknown`: not reachable, unreadable, or no budget left. */
export type Evidence = 'confirmed' | 'refuted' | 'unknown';

/** What a held effect claims, in the terms of the evidence that can confirm it. */
export type EvidenceClaim =
  /** `actor` follows `target` of this node: `target@<our domain>` in the actor's `following`. */
  | { kind: 'follow'; actor: string; target: string }
  /** The actor's post `postId` names `@mentioned@<our domain>`. */
  | { kind: 'mention'; actor: string; mentioned: string; postId: string }
  /** The actor's post `postId` (the reply's id on its node) exists with this content. */
  | { kind: 'reply'; actor: string; postId: string; content: string };

export interface EvidenceOptions {
  /** How long a fetched answer is reused. */
  cacheTtlMs: number;
  /** Answers remembered (oldest out first). */
  cacheMax: number;
}

export const EVIDENCE_DEFAULTS: EvidenceOptions = { cacheTtlMs: 60_000, cacheMax: 2_000 };

/** An answer as kept: what the sender served (or that it said "no such thing"), and when. */
type Answer<T> = { at: number; value: T | null } | { at: number; failed: true };

/**
 * Judges claims against the sender's public reads, through a bounded cache: one `following`
 * list or post serves every claim that needs it. An answer fetched before a claim arrived may
 * confirm it but never refute it (the follow or post may be newer than the answer). `mayFetch`
 * is asked before each request (the caller's budget); without it the verdict is `unknown`.
 */
export function createOriginEvidence(deps: {
  peers: Pick<PeerClient, 'getJson'>;
  clock: Clock;
  config: Pick<NodeConfig, 'domain'>;
  options?: Partial<EvidenceOptions>;
}) {
  const { peers, clock, config } = deps;
  const options = { ...EVIDENCE_DEFAULTS, ...deps.options };
  const cache = new Map<string, Answer<unknown>>();
  const self = config.domain.toLowerCase();

  function remember(key: string, answer: Answer<unknown>) {
    cache.delete(key);
    cache.set(key, answer);
    if (cache.size > options.cacheMax) cache.delete(cache.keys().next().value as string);
  }

  /** A cached answer usable for a claim received at `since`, or undefined (fetch it). */
  function cached<T>(key: string, since: number, confirms: (value: T | null) => boolean) {
    const answer = cache.get(key) as Answer<T> | undefined;
    if (!answer || 'failed' in answer || clock.now().getTime() - answer.at > options.cacheTtlMs) {
      return undefined;
    }
    return answer.at >= since || confirms(answer.value) ? answer : undefined;
  }

  async function read<T>(
    key: string,
    since: number,
    confirms: (value: T | null) => boolean,
    mayFetch: () => Promise<boolean>,
    fetch: () => Promise<PeerResult<T>>,
  ): Promise<Evidence> {
    const hit = cached<T>(key, since, confirms);
    if (hit) return confirms(hit.value) ? 'confirmed' : 'refuted';
    if (!(await mayFetch())) return 'unknown';
    const got = await fetch();
    const at = clock.now().getTime();
    if (!got.ok && !isRefusal(got.reason)) {
      remember(key, { at, failed: true });
      return 'unknown';
    }
    // A 404 (or another refusal) is the sender saying "no such user or post": an answer.
    const value = got.ok ? got.value : null;
    remember(key, { at, value });
    return confirms(value) ? 'confirmed' : 'refuted';
  }

  const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

  /** The post's author is the actor (bare on its node, or `actor@domain`). */
  const writtenBy = (post: SinglePost, actor: string, domain: string) =>
    same(post.author.handle, actor) || same(post.author.handle, `${actor}@${domain}`);

  function fetchPost(domain: string, postId: string) {
    return async (): Promise<PeerResult<SinglePost>> => {
      const got = await peers.getJson(domain, SWARM_PATHS.post(postId), z.unknown());
      if (!got.ok) return got;
      const post = parsePeerSinglePost(got.value, domain);
      if (post.ok) return { ...got, value: post.value };
      const error = {
        kind: 'invalid_response' as const,
        domain,
        status: got.status,
        reason: post.reason,
      };
      return { ok: false, reason: error, ms: got.ms };
    };
  }

  return {
    judge(
      domain: string,
      claim: EvidenceClaim,
      receivedAt: Date,
      mayFetch: () => Promise<boolean>,
    ): Promise<Evidence> {
      const since = receivedAt.getTime();
      switch (claim.kind) {
        case 'follow': {
          const wanted = `${claim.target}@${self}`;
          type Following = z.output<typeof peerFollowingResponseSchema>;
          return read<Following>(
            `following:${domain}:${claim.actor.toLowerCase()}`,
            since,
            (list) => !!list?.following.some((entry) => same(entry.handle, wanted)),
            mayFetch,
            () =>
              peers.getJson(
                domain,
                `${SWARM_PATHS.following(claim.actor)}?limit=100`,
                peerFollowingResponseSchema,
              ),
          );
        }
        case 'mention':
          return read<SinglePost>(
            `post:${domain}:${claim.postId}`,
            since,
            (post) =>
              !!post &&
              writtenBy(post, claim.actor, domain) &&
              mentions(post.content, claim.mentioned, self),
            mayFetch,
            fetchPost(domain, claim.postId),
          );
        case 'reply':
          return read<SinglePost>(
            `post:${domain}:${claim.postId}`,
            since,
            (post) =>
              !!post && writtenBy(post, claim.actor, domain) && post.content === claim.content,
            mayFetch,
            fetchPost(domain, claim.postId),
          );
      }
    },
  };
}

export type OriginEvidence = ReturnType<typeof createOriginEvidence>;

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * True when `text` names `@handle@domain` as a whole address: not `@bob@a.example.org` for
 * `a.example`, nor `@bob@a.example:4000` for `a.example` (another node), but `@bob@a.example.`
 * at the end of a sentence.
 */
export function mentions(text: string, handle: string, domain: string): boolean {
  const pattern = new RegExp(
    `(^|[^A-Za-z0-9_@])@${escape(handle)}@${escape(domain)}(?![A-Za-z0-9_-]|\\.[A-Za-z0-9]|:\\d)`,
    'i',
  );
  return pattern.test(text);
}
