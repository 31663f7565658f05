import { refuse, type Refusal } from '@swarm/contract';

/**
 * Why a peer's inbound announce or gossip from `domain` is refused, if it is: signed by another
 * node than it speaks for (`sourceDomain`, when signed), our own domain, or a blocked sender.
 * Nothing is recorded for a refused sender.
 */
export async function refuseSender(
  domain: string,
  sourceDomain: string | undefined,
  self: string,
  isBlocked: (domain: string) => boolean | Promise<boolean>,
): Promise<{ ok: false; reason: Refusal<'NODE_BLOCKED' | 'FORBIDDEN'> } | undefined> {
  if (sourceDomain !== undefined && sourceDomain !== domain) {
    return refuse(
      'FORBIDDEN',
      `The request is signed by ${sourceDomain} but speaks for ${domain}.`,
    );
  }
  if (domain === self) return refuse('FORBIDDEN', `${domain} is this node's own domain.`);
  if (await isBlocked(domain)) return refuse('NODE_BLOCKED', `${domain} is blocked on this node.`);
  return undefined;
}
