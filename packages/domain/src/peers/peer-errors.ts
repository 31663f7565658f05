import { ERROR_STATUS, errorBody, type ErrorBody } from '@swarm/contract';

/**
 * Why a contact with a peer failed. Every variant is an expected outcome (docs/architecture.md):
 * the registry counts it as a failed contact, the outbox decides on a retry, the edge maps it once.
 */
export type PeerError =
  | { kind: 'timeout'; domain: string; timeoutMs: number }
  /** DNS failure, connection refused or reset, TLS failure. */
  | { kind: 'unreachable'; domain: string; reason: string }
  /** The SSRF guard refused the address; nothing was sent. */
  | { kind: 'blocked_address'; domain: string; address: string | undefined; reason: string }
  | { kind: 'redirect'; domain: string; status: number; location: string | null }
  | { kind: 'too_large'; domain: string; maxBytes: number }
  | {
      kind: 'http';
      domain: string;
      status: number;
      /** The peer's `{ error, code, details? }` body, when it sent one. */
      body: ErrorBody | undefined;
      /** The `error` text of a body without our `code` (the origin's `{error, details}`). */
      message?: string;
      /** `Retry-After` in seconds, when present. */
      retryAfter: number | undefined;
    }
  /** 2xx, but not JSON or not the expected shape. */
  | { kind: 'invalid_response'; domain: string; status: number; reason: string }
  /** Nothing was sent: the peer's protocol profile has no such request (e.g. a direct message to an origin-profile node). */
  | { kind: 'unsupported'; domain: string; reason: string };

export type PeerErrorKind = PeerError['kind'];

/** May the same request succeed later (outbox retry)? Timeouts, network errors, 5xx and 429. */
export function isRetryable(error: PeerError): boolean {
  switch (error.kind) {
    case 'timeout':
    case 'unreachable':
      return true;
    case 'http':
      return error.status >= 500 || error.status === 429;
    default:
      return false;
  }
}

/**
 * A refusal: the peer answered, with a 4xx other than 408/429. It disagrees with our request
 * (e.g. a node of the origin profile rejects a shape), which says nothing about its health:
 * the registry records it without counting a failed contact (docs/protocol.md).
 */
export function isRefusal(error: PeerError): boolean {
  return (
    error.kind === 'http' &&
    error.status >= 400 &&
    error.status < 500 &&
    error.status !== 408 &&
    error.status !== 429
  );
}

/** One sentence for people (UI, admin sync log), naming the peer. */
export function describePeerError(error: PeerError): string {
  const peer = error.domain;
  switch (error.kind) {
    case 'timeout':
      return `${peer} did not answer within ${error.timeoutMs / 1000} seconds.`;
    case 'unreachable':
      return `${peer} could not be reached (${error.reason}).`;
    case 'blocked_address':
      return `${peer} was not contacted: ${error.reason}.`;
    case 'redirect':
      return `${peer} answered with a redirect (HTTP ${error.status}), which nodes do not follow.`;
    case 'too_large':
      return `${peer} sent an answer larger than ${error.maxBytes} bytes.`;
    case 'http':
      return `${peer} answered with HTTP ${error.status}${error.body ? ` (${error.body.code})` : ''}${error.message ? `: "${error.message}"` : ''}.`;
    case 'invalid_response':
      return `${peer} sent an answer this node could not read: ${error.reason}.`;
    case 'unsupported':
      return `${peer} was not contacted: ${error.reason}.`;
  }
}

/**
 * The edge's answer when a user-facing request needed a peer that failed (docs/protocol.md,
 * Errors).
 */
export function peerErrorToHttp(error: PeerError): { status: 502 | 504; body: ErrorBody } {
  const code = error.kind === 'timeout' ? 'PEER_TIMEOUT' : 'PEER_UNAVAILABLE';
  const details: Record<string, unknown> = { peer: error.domain, reason: error.kind };
  if (error.kind === 'http') {
    details.status = error.status;
    if (error.body) details.peerCode = error.body.code;
  }
  return { status: ERROR_STATUS[code], body: errorBody(code, describePeerError(error), details) };
}
