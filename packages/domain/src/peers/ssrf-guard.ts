import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { isLoopbackDomain, parseDomainParts } from '@swarm/contract';

/**
 * Decides which addresses this node may contact (docs/protocol.md "Outbound requests to peers").
 * Peer domains come from strangers (announce, gossip), so without this guard any peer could make us
 * request our own admin port, a database or the cloud metadata service.
 */

/** Resolves a host name to every address it has (tests inject a table instead of DNS). */
export type ResolveHost = (host: string) => Promise<string[]>;

export const resolveHostWithDns: ResolveHost = async (host) =>
  (await lookup(host, { all: true, verbatim: true })).map((entry) => entry.address);

export type SpecialUseKind =
  | 'unspecified'
  | 'private'
  | 'shared'
  | 'loopback'
  | 'link_local'
  | 'unique_local'
  | 'multicast'
  | 'reserved'
  | 'documentation'
  | 'benchmarking'
  | 'not_an_address';

export interface SpecialUseRange {
  kind: SpecialUseKind;
  /** The matching block, e.g. `10.0.0.0/8`, for messages and logs. */
  cidr: string;
}

interface Block {
  base: bigint;
  bits: number;
  kind: SpecialUseKind;
  cidr: string;
}

function block(kind: SpecialUseKind, cidr: string, width: 32 | 128): Block {
  const [address = '', bits = ''] = cidr.split('/');
  const base = width === 32 ? ipv4ToBigInt(address) : ipv6ToBigInt(address);
  if (base === null) throw new Error(`bad CIDR in the SSRF table: ${cidr}`);
  return { base, bits: Number(bits), kind, cidr };
}

function contains(b: Block, value: bigint, width: 32 | 128): boolean {
  const shift = BigInt(width - b.bits);
  return value >> shift === b.base >> shift;
}

// IANA IPv4 special-purpose registry: everything not globally reachable unicast.
const IPV4_BLOCKS: Block[] = (
  [
    ['unspecified', '0.0.0.0/8'],
    ['private', '10.0.0.0/8'],
    ['shared', '100.64.0.0/10'], // carrier-grade NAT
    ['loopback', '127.0.0.0/8'],
    ['link_local', '169.254.0.0/16'], // includes the cloud metadata service 169.254.169.254
    ['private', '172.16.0.0/12'],
    ['reserved', '192.0.0.0/24'],
    ['documentation', '192.0.2.0/24'],
    ['reserved', '192.88.99.0/24'], // deprecated 6to4 relay anycast
    ['private', '192.168.0.0/16'],
    ['benchmarking', '198.18.0.0/15'],
    ['documentation', '198.51.100.0/24'],
    ['documentation', '203.0.113.0/24'],
    ['multicast', '224.0.0.0/4'],
    ['reserved', '240.0.0.0/4'], // includes broadcast 255.255.255.255
  ] as const
).map(([kind, cidr]) => block(kind, cidr, 32));

// IPv6: only global unicast (2000::/3) can be public; these are carved out of it or named for
// clearer messages. Forms that embed an IPv4 address are handled before this table.
const IPV6_BLOCKS: Block[] = (
  [
    ['unspecified', '::/128'],
    ['loopback', '::1/128'],
    ['link_local', 'fe80::/10'],
    ['link_local', 'fec0::/10'], // deprecated site-local
    ['unique_local', 'fc00::/7'],
    ['multicast', 'ff00::/8'],
    ['reserved', '2001::/32'], // Teredo: tunnels to an arbitrary IPv4 address
    ['benchmarking', '2001:2::/48'],
    ['reserved', '2001:10::/28'], // ORCHID
    ['reserved', '2001:20::/28'], // ORCHIDv2
    ['documentation', '2001:db8::/32'],
    ['documentation', '3fff::/20'],
  ] as const
).map(([kind, cidr]) => block(kind, cidr, 128));

const GLOBAL_UNICAST_V6 = block('reserved', '2000::/3', 128);
// Forms whose traffic ends up at an embedded IPv4 address, so that address decides.
const IPV4_MAPPED = block('reserved', '::ffff:0:0/96', 128);
const NAT64 = block('reserved', '64:ff9b::/96', 128);
const SIX_TO_FOUR = block('reserved', '2002::/16', 128);

function ipv4ToBigInt(address: string): bigint | null {
  if (isIP(address) !== 4) return null;
  return address.split('.').reduce((acc, octet) => (acc << 8n) | BigInt(Number(octet)), 0n);
}

function ipv6ToBigInt(input: string): bigint | null {
  const address = input.split('%')[0] ?? ''; // scoped answers such as fe80::1%eth0
  if (isIP(address) !== 6) return null;
  let text = address;
  const lastColon = text.lastIndexOf(':');
  const tail = text.slice(lastColon + 1);
  if (tail.includes('.')) {
    const v4 = ipv4ToBigInt(tail);
    if (v4 === null) return null;
    text = `${text.slice(0, lastColon + 1)}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const [head = '', rest] = text.split('::');
  const headGroups = head === '' ? [] : head.split(':');
  const tailGroups = rest === undefined || rest === '' ? [] : rest.split(':');
  const zeros =
    rest === undefined ? [] : Array<string>(8 - headGroups.length - tailGroups.length).fill('0');
  return [...headGroups, ...zeros, ...tailGroups].reduce(
    (acc, group) => (acc << 16n) | BigInt(Number.parseInt(group, 16)),
    0n,
  );
}

function classifyV4(value: bigint): SpecialUseRange | null {
  const hit = IPV4_BLOCKS.find((b) => contains(b, value, 32));
  return hit ? { kind: hit.kind, cidr: hit.cidr } : null;
}

function classifyV6(value: bigint): SpecialUseRange | null {
  const embedded = (via: Block, v4: bigint): SpecialUseRange | null => {
    const inner = classifyV4(v4);
    return inner ? { kind: inner.kind, cidr: `${inner.cidr} via ${via.cidr}` } : null;
  };
  if (contains(IPV4_MAPPED, value, 128) || contains(NAT64, value, 128)) {
    return embedded(contains(NAT64, value, 128) ? NAT64 : IPV4_MAPPED, value & 0xffffffffn);
  }
  if (contains(SIX_TO_FOUR, value, 128)) return embedded(SIX_TO_FOUR, (value >> 80n) & 0xffffffffn);
  const hit = IPV6_BLOCKS.find((b) => contains(b, value, 128));
  if (hit) return { kind: hit.kind, cidr: hit.cidr };
  if (!contains(GLOBAL_UNICAST_V6, value, 128))
    return { kind: 'reserved', cidr: 'outside 2000::/3' };
  return null;
}

/**
 * The special-use range an IP address falls in, or null for a public unicast address. Anything
 * that is not an IP address is treated as special (never contacted).
 */
export function specialUseRange(address: string): SpecialUseRange | null {
  const v4 = ipv4ToBigInt(address);
  if (v4 !== null) return classifyV4(v4);
  const v6 = ipv6ToBigInt(address);
  if (v6 !== null) return classifyV6(v6);
  return { kind: 'not_an_address', cidr: address };
}

export function isPublicAddress(address: string): boolean {
  return specialUseRange(address) === null;
}

export interface AddressPolicy {
  /** Development mode: loopback addresses are allowed, but only for loopback domains. */
  dev: boolean;
}

export type AddressVerdict = { allowed: true } | { allowed: false; range: SpecialUseRange };

/** May `address` be contacted as `domain`? */
export function checkAddress(
  address: string,
  domain: string,
  policy: AddressPolicy,
): AddressVerdict {
  const range = specialUseRange(address);
  if (range === null) return { allowed: true };
  if (range.kind === 'loopback' && policy.dev && isLoopbackDomain(domain)) return { allowed: true };
  return { allowed: false, range };
}

export type VetResult =
  | { ok: true; hostname: string; addresses: string[] }
  | { ok: false; kind: 'blocked_address'; address: string | undefined; reason: string }
  | { ok: false; kind: 'unreachable'; reason: string };

/**
 * Resolves a peer domain and checks every address it resolves to; the caller then connects
 * only to these vetted addresses (no second lookup an attacker's DNS could answer differently).
 * Throws only on an invalid domain, which callers validate first.
 */
export async function vetPeerDomain(
  domain: string,
  policy: AddressPolicy & { resolveHost?: ResolveHost },
): Promise<VetResult> {
  const parts = parseDomainParts(domain);
  if (!parts.ok) throw new TypeError(`vetPeerDomain: ${parts.reason}`);
  const hostname = parts.value.host.replace(/^\[(.*)\]$/, '$1');
  if (isLoopbackDomain(domain) && !policy.dev) {
    return {
      ok: false,
      kind: 'blocked_address',
      address: isIP(hostname) ? hostname : undefined,
      reason: 'loopback peers are only contacted in development mode',
    };
  }
  let addresses: string[];
  if (isIP(hostname)) {
    addresses = [hostname];
  } else {
    try {
      addresses = await (policy.resolveHost ?? resolveHostWithDns)(hostname);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException | undefined)?.code;
      return {
        ok: false,
        kind: 'unreachable',
        reason: `DNS lookup failed${code ? ` (${code})` : ''}`,
      };
    }
    if (addresses.length === 0)
      return { ok: false, kind: 'unreachable', reason: 'DNS lookup returned no address' };
  }
  for (const address of addresses) {
    const verdict = checkAddress(address, domain, policy);
    if (!verdict.allowed) {
      const { kind, cidr } = verdict.range;
      return {
        ok: false,
        kind: 'blocked_address',
        address,
        reason: `${address} is not a public address (${kind.replaceAll('_', '-')}, ${cidr})`,
      };
    }
  }
  return { ok: true, hostname, addresses };
}
