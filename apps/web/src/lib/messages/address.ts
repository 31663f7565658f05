import { err, ok, parseHandleAddress, parseRemoteHandle, type Result } from '@swarm/contract';

/**
 * What people type into "To" (`bob`, `@bob`, `bob@beta.example`, `@bob@beta.example`) → the
 * message address `handle@domain` (a bare handle is someone on this node), or a sentence. As the
 * node's `parsePersonAddress`: handles of this node are lower-case, others keep their spelling.
 */
export function messageAddress(input: string, localDomain: string): Result<string> {
  const text = input.trim().replace(/^@/, '');
  if (text === '') return err('Type who to write to, like @bob or @bob@node.example.');
  const full = text.includes('@') ? text : `${text}@${localDomain}`;
  const parsed = text.includes('@') || parseRemoteHandle(text).ok ? parseHandleAddress(full) : null;
  if (!parsed?.ok) {
    return err(`“${input.trim()}” is not an address like @bob or @bob@node.example.`);
  }
  const { handle, domain } = parsed.value;
  return ok(`${domain === localDomain ? handle.toLowerCase() : handle}@${domain}`);
}

/** `bob@b.example` as people read it: `bob` for someone on this node, else `bob@b.example`. */
export function shortAddress(address: string, localDomain: string): string {
  const parsed = parseHandleAddress(address);
  if (!parsed.ok) return address;
  return parsed.value.domain === localDomain ? parsed.value.handle : address;
}
