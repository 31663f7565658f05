/**
 * Ids of the client API (docs/clients.md "Ids"). Posts and notifications answer their `api_id`,
 * a positive 64-bit number that sorts in time order, as a decimal string; people answer the UUID
 * of their row (a local user or a remote actor), which apps treat as opaque.
 */

/** The decimal form apps see. */
export function formatApiId(id: bigint): string {
  return id.toString();
}

const DECIMAL = /^[1-9][0-9]{0,18}$/;
const MAX = (1n << 63n) - 1n;

/** An id an app sent back, or null when it cannot be one of ours (then the record is not found). */
export function parseApiId(value: unknown): bigint | null {
  if (typeof value !== 'string' || !DECIMAL.test(value)) return null;
  const id = BigInt(value);
  return id <= MAX ? id : null;
}
