import { err, type ErrorCode } from '@swarm/contract';
import { describePeerError, type PeerError } from '../peers/index.ts';

/**
 * Why a user-facing read failed (DESIGN §3 Errors), mapped once at the edge: 400
 * `INVALID_REQUEST`, 404 `USER_NOT_FOUND` / `POST_NOT_FOUND`, 502 `PEER_UNAVAILABLE` (the peer
 * could not be reached, refused, or answered something unreadable), 504 `PEER_TIMEOUT`.
 */
export type ReadErrorCode = Extract<
  ErrorCode,
  'INVALID_REQUEST' | 'USER_NOT_FOUND' | 'POST_NOT_FOUND' | 'PEER_UNAVAILABLE' | 'PEER_TIMEOUT'
>;

export interface ReadError {
  code: ReadErrorCode;
  message: string;
}

export const readError = (code: ReadErrorCode, message: string) =>
  err<ReadError>({ code, message });

/**
 * A failed peer read: a 404 from the peer is "no such user/post there" (`notFound`), a timeout
 * is PEER_TIMEOUT, anything else (refused, 5xx, redirect, garbage…) is PEER_UNAVAILABLE.
 */
export function peerReadError(
  error: PeerError,
  notFound: { code: 'USER_NOT_FOUND' | 'POST_NOT_FOUND'; message: string },
) {
  if (error.kind === 'http' && error.status === 404)
    return readError(notFound.code, notFound.message);
  if (error.kind === 'timeout') return readError('PEER_TIMEOUT', describePeerError(error));
  return readError('PEER_UNAVAILABLE', describePeerError(error));
}
