import { err, ok, parseHandleAddress, parseRemoteHandle, type Result } from '@swarm/contract';

/**
 * What people type into "Find someone" (`alice`, `@alice`, `bob@beta.example`) → the profile
 * path `/@…`, or a sentence saying what is wrong. Shared by the header form (browser) and the
 * `/find` fallback (no JavaScript).
 */
export function findSomeonePath(input: string): Result<string> {
  const text = input.trim().replace(/^@/, '');
  if (text === '') return err('Type a handle like alice, or alice@node.example.');
  const address = text.includes('@') ? parseHandleAddress(text) : parseRemoteHandle(text);
  if (!address.ok)
    return err(`“${input.trim()}” is not a handle like alice or alice@node.example.`);
  const path =
    typeof address.value === 'string'
      ? address.value
      : `${address.value.handle}@${address.value.domain}`;
  return ok(`/@${path}`);
}
