import { parseHandleAddress } from '@swarm/contract';

/** `bob@beta.example:4102` → its parts; a bare `alice` is someone on this node (domain null). */
export function splitAddress(address: string): { handle: string; domain: string | null } {
  if (!address.includes('@')) return { handle: address, domain: null };
  const parsed = parseHandleAddress(address);
  return parsed.ok ? parsed.value : { handle: address, domain: null };
}

/** "No one called bob on beta.example" / "No one here is called alice". */
export function nobodyCalled(address: string): string {
  const { handle, domain } = splitAddress(address);
  return domain ? `No one called ${handle} on ${domain}` : `No one here is called ${handle}`;
}
