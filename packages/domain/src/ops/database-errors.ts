/**
 * Errors that mean "the database cannot be reached right now" (down, restarting, refusing
 * connections, network cut), as opposed to a bug or bad data. The edges answer them with
 * 503 UNAVAILABLE instead of 500 INTERNAL. Classified by codes, never by message text:
 * Prisma's connection codes, its driver adapter's error kinds, Postgres SQLSTATEs of the
 * connection and operator-intervention classes, and Node's socket error codes.
 */
const PRISMA_CODES = new Set([
  'P1001', // can't reach database server
  'P1002', // database server timed out
  'P1008', // operation timed out
  'P1017', // server closed the connection
  'P2024', // timed out fetching a connection from the pool
]);

const ADAPTER_KINDS = new Set([
  'DatabaseNotReachable',
  'ConnectionClosed',
  'SocketTimeout',
  'TooManyConnections',
  'DatabaseDoesNotExist',
]);

const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/** SQLSTATE classes 08 (connection exception) and 57P (operator intervention), 53300. */
const isUnavailableSqlState = (code: string) =>
  /^08[0-9A-Z]{3}$/.test(code) || /^57P0[1-4]$/.test(code) || code === '53300';

type Bag = Record<string, unknown>;
const isBag = (v: unknown): v is Bag => typeof v === 'object' && v !== null;

export function isDatabaseUnavailableError(error: unknown): boolean {
  const seen = new Set<unknown>();
  let current: unknown = error;
  // Walk `cause` chains and Prisma's `meta.driverAdapterError.cause`.
  const queue: unknown[] = [current];
  while (queue.length > 0) {
    current = queue.shift();
    if (!isBag(current) || seen.has(current)) continue;
    seen.add(current);
    const code = typeof current.code === 'string' ? current.code : undefined;
    if (code && (PRISMA_CODES.has(code) || SOCKET_CODES.has(code) || isUnavailableSqlState(code))) {
      return true;
    }
    if (typeof current.kind === 'string' && ADAPTER_KINDS.has(current.kind)) return true;
    if (current.kind === 'postgres' && typeof current.code === 'string') {
      if (isUnavailableSqlState(current.code)) return true;
    }
    queue.push(current.cause);
    if (isBag(current.meta)) queue.push(current.meta.driverAdapterError);
    if (Array.isArray(current.errors)) queue.push(...(current.errors as unknown[]));
  }
  return false;
}
