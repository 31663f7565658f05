import { err, type ErrorCode } from '@swarm/contract';
import type { PeerError } from '../peers/index.ts';
import type { Refusal } from '../refusal.ts';

/**
 * Why a user-facing read failed (docs/protocol.md, Errors), mapped once at the edge: 400
 * `INVALID_REQUEST`, 404 `USER_NOT_FOUND` / `POST_NOT_FOUND`, 502 `PEER_UNAVAILABLE` (the peer
 * could not be reached, did not answer in time, refused, or answered something unreadable: one
 * answer for all, see `peerUnavailableMessage`). `PEER_TIMEOUT` is no longer used for reads.
 */
export type ReadErrorCode = Extract<
  ErrorCode,
  'INVALID_REQUEST' | 'USER_NOT_FOUND' | 'POST_NOT_FOUND' | 'PEER_UNAVAILABLE' | 'PEER_TIMEOUT'
>;

/** A read's refusal: the one refusal type, its code narrowed to what reads answer. */
export type ReadError = Refusal<ReadErrorCode>;

export const readError = (code: ReadErrorCode, message: string) =>
  err<ReadError>({ code, message });

/**
 * What a person is told when a peer could not give what a page needed: one sentence for every
 * failure mode (refused, timed out, unresolvable, an address the guard refuses, 5xx, garbage,
 * the visitors' budget spent), so a page view cannot be used to probe addresses or ports. The
 * cause goes to the logs.
 */
export function peerUnavailableMessage(domain: string): string {
  return `${domain} is not available right now. Try again later.`;
}

/**
 * A failed peer read: a 404 from the peer is "no such user/post there" (`notFound`), anything
 * else (refused, timeout, 5xx, redirect, garbage…) is PEER_UNAVAILABLE with one message.
 */
export function peerReadError(
  error: PeerError,
  notFound: { code: 'USER_NOT_FOUND' | 'POST_NOT_FOUND'; message: string },
) {
  if (error.kind === 'http' && error.status === 404)
    return readError(notFound.code, notFound.message);
  return readError('PEER_UNAVAILABLE', peerUnavailableMessage(error.domain));
}

/** A gated read refused by the visitors' budget: the same answer as any other failure. */
export function gatedReadError(
  answer: { ok: false } & ({ reason: PeerError } | { limited: true }),
  domain: string,
  notFound: { code: 'USER_NOT_FOUND' | 'POST_NOT_FOUND'; message: string },
) {
  if ('reason' in answer) return peerReadError(answer.reason, notFound);
  return readError('PEER_UNAVAILABLE', peerUnavailableMessage(domain));
}
