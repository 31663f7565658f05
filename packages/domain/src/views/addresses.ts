import { err, ok, parseHandleAddress, parseRemoteHandle, type Result } from '@swarm/contract';

/**
 * `alice`, `@alice`, `bob@beta.example`: the canonical `handle@domain`. Handles of this node are
 * lower-case (sign-up stores them so); others keep their node's spelling.
 */
export function parsePersonAddress(input: string, self: string): Result<string> {
  if (typeof input !== 'string') return err('the address must be a string');
  const text = input.trim().replace(/^@/, '');
  if (!text.includes('@')) {
    const handle = parseRemoteHandle(text);
    return handle.ok ? ok(`${handle.value.toLowerCase()}@${self}`) : handle;
  }
  const parsed = parseHandleAddress(text);
  if (!parsed.ok) return parsed;
  const { handle, domain } = parsed.value;
  return ok(domain === self ? `${handle.toLowerCase()}@${domain}` : `${handle}@${domain}`);
}
