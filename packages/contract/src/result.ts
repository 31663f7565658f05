/**
 * Expected failures are values, not exceptions (docs/architecture.md): parsers of untrusted input
 * return a Result and the edge (HTTP/tRPC) maps `reason` to an error body once.
 */
export type Result<T, E = string> = { ok: true; value: T } | { ok: false; reason: E };

export function ok<T>(value: T): { ok: true; value: T } {
  return { ok: true, value };
}

export function err<E = string>(reason: E): { ok: false; reason: E } {
  return { ok: false, reason };
}
