import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkAddress, isPublicAddress, specialUseRange, vetPeerDomain } from './ssrf-guard.ts';

const octet = fc.integer({ min: 0, max: 255 });
const hex16 = (min = 0, max = 0xffff) => fc.integer({ min, max }).map((n) => n.toString(16));

/** Random addresses inside `a.b.c.d/bits`. */
function inV4Block(cidr: string) {
  const [base = '', bits = ''] = cidr.split('/');
  const start = base.split('.').reduce((acc, o) => acc * 256 + Number(o), 0);
  const size = 2 ** (32 - Number(bits));
  return fc.integer({ min: 0, max: size - 1 }).map((offset) => {
    const n = start + offset;
    return [24, 16, 8, 0].map((shift) => Math.floor(n / 2 ** shift) % 256).join('.');
  });
}

const PRIVATE_V4 = [
  '0.0.0.0/8',
  '10.0.0.0/8',
  '100.64.0.0/10',
  '127.0.0.0/8',
  '169.254.0.0/16',
  '172.16.0.0/12',
  '192.168.0.0/16',
  '198.18.0.0/15',
  '224.0.0.0/4',
  '240.0.0.0/4',
];

// First octets whose whole /8 is public unicast, plus the public halves around 100.64/10 and 172.16/12.
const publicV4 = fc.oneof(
  fc
    .tuple(
      fc.constantFrom(
        1,
        8,
        9,
        11,
        23,
        45,
        64,
        99,
        101,
        126,
        128,
        151,
        168,
        170,
        173,
        185,
        191,
        193,
        197,
        199,
        202,
        204,
        223,
      ),
      octet,
      octet,
      octet,
    )
    .map((parts) => parts.join('.')),
  fc
    .tuple(
      fc.oneof(fc.integer({ min: 0, max: 63 }), fc.integer({ min: 128, max: 255 })),
      octet,
      octet,
    )
    .map((p) => `100.${p.join('.')}`),
  fc
    .tuple(
      fc.oneof(fc.integer({ min: 0, max: 15 }), fc.integer({ min: 32, max: 255 })),
      octet,
      octet,
    )
    .map((p) => `172.${p.join('.')}`),
);

describe('specialUseRange', () => {
  it.each([
    ['10.0.0.1', 'private'],
    ['10.255.255.255', 'private'],
    ['172.16.0.0', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['169.254.169.254', 'link_local'],
    ['100.64.0.0', 'shared'],
    ['100.127.255.255', 'shared'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['224.0.0.251', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.255', 'reserved'],
    ['192.0.2.10', 'documentation'],
    ['198.51.100.7', 'documentation'],
    ['203.0.113.99', 'documentation'],
    ['198.19.1.1', 'benchmarking'],
    ['192.0.0.8', 'reserved'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['0:0:0:0:0:0:0:1', 'loopback'],
    ['fe80::1', 'link_local'],
    ['fe80::1%eth0', 'link_local'],
    ['febf:ffff::1', 'link_local'],
    ['fc00::1', 'unique_local'],
    ['fd12:3456:789a::1', 'unique_local'],
    ['ff02::1', 'multicast'],
    ['2001:db8::1', 'documentation'],
    ['2001:0:4136:e378::1', 'reserved'], // Teredo
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:a00:1', 'private'],
    ['0:0:0:0:0:ffff:7f00:1', 'loopback'],
    ['::ffff:169.254.169.254', 'link_local'],
    ['64:ff9b::10.1.2.3', 'private'], // NAT64 to a private address
    ['2002:c0a8:0101::1', 'private'], // 6to4 of 192.168.1.1
    ['::10.0.0.1', 'reserved'], // deprecated IPv4-compatible form
    ['100::1', 'reserved'], // discard-only, outside global unicast
    ['example.org', 'not_an_address'],
    ['', 'not_an_address'],
    ['10.0.0.01', 'not_an_address'],
  ])('%s is %s', (address, kind) => {
    expect(specialUseRange(address)?.kind).toBe(kind);
  });

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '93.184.216.34',
    '172.15.255.255',
    '172.32.0.0',
    '100.63.255.255',
    '100.128.0.0',
    '169.253.255.255',
    '192.169.0.1',
    '223.255.255.255',
    '2606:4700:4700::1111',
    '2a00:1450:4001:800::200e',
    '::ffff:8.8.8.8',
    '64:ff9b::8.8.8.8',
    '2002:0808:0808::1',
  ])('%s is public', (address) => {
    expect(specialUseRange(address)).toBeNull();
    expect(isPublicAddress(address)).toBe(true);
  });

  it('refuses every address inside the special IPv4 blocks, in every IPv6 embedding', () => {
    fc.assert(
      fc.property(fc.constantFrom(...PRIVATE_V4).chain(inV4Block), (address) => {
        const [a = 0, b = 0, c = 0, d = 0] = address.split('.').map(Number);
        const hex = `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
        for (const form of [address, `::ffff:${address}`, `::ffff:${hex}`, `64:ff9b::${address}`]) {
          expect(isPublicAddress(form), form).toBe(false);
        }
      }),
    );
  });

  it('accepts public IPv4 addresses, and their mapped and NAT64 forms alike', () => {
    fc.assert(
      fc.property(publicV4, (address) => {
        expect(isPublicAddress(address)).toBe(true);
        expect(isPublicAddress(`::ffff:${address}`)).toBe(true);
        expect(isPublicAddress(`64:ff9b::${address}`)).toBe(true);
      }),
    );
  });

  it('gives the same verdict for an IPv4 address and its IPv4-mapped IPv6 form', () => {
    fc.assert(
      fc.property(fc.ipV4(), (address) => {
        expect(isPublicAddress(`::ffff:${address}`)).toBe(isPublicAddress(address));
      }),
    );
  });

  it('refuses unique-local, link-local and multicast IPv6; accepts ordinary global unicast', () => {
    const rest = fc.array(hex16(), { minLength: 7, maxLength: 7 });
    const v6 = (first: fc.Arbitrary<string>) =>
      fc.tuple(first, rest).map(([f, r]) => [f, ...r].join(':'));
    const expectKind = (first: fc.Arbitrary<string>, kind: string | null) =>
      fc.assert(
        fc.property(v6(first), (address) => {
          expect(specialUseRange(address)?.kind ?? null).toBe(kind);
        }),
      );
    expectKind(hex16(0xfc00, 0xfdff), 'unique_local');
    expectKind(hex16(0xfe80, 0xfebf), 'link_local');
    expectKind(hex16(0xff00, 0xffff), 'multicast');
    // 2400::/6 .. 2c00::/6 hold no special blocks (2001::/16, 2002::/16 and 3fff::/20 lie outside).
    expectKind(hex16(0x2400, 0x2fff), null);
  });
});

describe('checkAddress', () => {
  it('allows loopback only in development mode and only for loopback domains', () => {
    expect(checkAddress('127.0.0.1', '127.0.0.1:3001', { dev: true })).toEqual({ allowed: true });
    expect(checkAddress('::1', 'localhost:3001', { dev: true })).toEqual({ allowed: true });
    expect(checkAddress('127.0.0.1', '127.0.0.1:3001', { dev: false })).toMatchObject({
      allowed: false,
    });
    // A public-looking domain resolving to loopback is the classic SSRF trick, dev or not.
    expect(checkAddress('127.0.0.1', 'peer.example', { dev: true })).toMatchObject({
      allowed: false,
    });
  });

  it('refuses private, non-loopback addresses even in development mode', () => {
    for (const address of ['10.0.0.1', '192.168.1.10', '169.254.169.254', 'fd00::1']) {
      expect(checkAddress(address, 'localhost:3001', { dev: true }), address).toMatchObject({
        allowed: false,
      });
    }
  });
});

describe('vetPeerDomain', () => {
  const table = (entries: Record<string, string[]>) => async (host: string) => {
    const found = entries[host];
    if (!found)
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return found;
  };

  it('checks every resolved address', async () => {
    const resolveHost = table({
      'good.example': ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'],
      'mixed.example': ['93.184.216.34', '10.0.0.7'],
      'meta.example': ['169.254.169.254'],
    });
    expect(await vetPeerDomain('good.example:8443', { dev: false, resolveHost })).toEqual({
      ok: true,
      hostname: 'good.example',
      addresses: ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'],
    });
    expect(await vetPeerDomain('mixed.example', { dev: false, resolveHost })).toMatchObject({
      ok: false,
      kind: 'blocked_address',
      address: '10.0.0.7',
    });
    expect(await vetPeerDomain('meta.example', { dev: true, resolveHost })).toMatchObject({
      ok: false,
      kind: 'blocked_address',
      address: '169.254.169.254',
    });
  });

  it('checks IP literals directly, without DNS', async () => {
    const resolveHost = () => Promise.reject(new Error('DNS must not be asked about IP literals'));
    expect(await vetPeerDomain('8.8.8.8', { dev: false, resolveHost })).toMatchObject({
      ok: true,
      addresses: ['8.8.8.8'],
    });
    expect(
      await vetPeerDomain('[2606:4700:4700::1111]:443', { dev: false, resolveHost }),
    ).toMatchObject({
      ok: true,
      hostname: '2606:4700:4700::1111',
    });
    expect(await vetPeerDomain('[::ffff:10.0.0.1]', { dev: true, resolveHost })).toMatchObject({
      kind: 'blocked_address',
    });
    expect(await vetPeerDomain('10.1.2.3:3000', { dev: true, resolveHost })).toMatchObject({
      kind: 'blocked_address',
    });
    expect(await vetPeerDomain('127.0.0.1:3000', { dev: true, resolveHost })).toMatchObject({
      ok: true,
    });
    expect(await vetPeerDomain('[::1]:3000', { dev: true, resolveHost })).toMatchObject({
      ok: true,
      addresses: ['::1'],
    });
  });

  it('refuses loopback domains outside development mode before any lookup', async () => {
    const resolveHost = () => Promise.reject(new Error('must not resolve'));
    expect(await vetPeerDomain('localhost:3000', { dev: false, resolveHost })).toMatchObject({
      ok: false,
      kind: 'blocked_address',
      reason: expect.stringMatching(/development mode/),
    });
  });

  it('reports DNS failures and empty answers as unreachable', async () => {
    const resolveHost = table({ 'empty.example': [] });
    expect(await vetPeerDomain('nowhere.example', { dev: false, resolveHost })).toEqual({
      ok: false,
      kind: 'unreachable',
      reason: 'DNS lookup failed (ENOTFOUND)',
    });
    expect(await vetPeerDomain('empty.example', { dev: false, resolveHost })).toMatchObject({
      kind: 'unreachable',
    });
  });

  it('throws on an invalid domain (a programmer error: domains are validated on the way in)', async () => {
    await expect(vetPeerDomain('http://x', { dev: false })).rejects.toThrow(TypeError);
  });
});
