import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { baseUrlForDomain, domainSchema, isLoopbackDomain, parseDomain } from './node-domain.ts';

describe('parseDomain', () => {
  it.each([
    ['beta.example', 'beta.example'],
    ['Beta.Example', 'beta.example'],
    ['beta.example:8443', 'beta.example:8443'],
    ['localhost', 'localhost'],
    ['localhost:3000', 'localhost:3000'],
    ['127.0.0.1:3001', '127.0.0.1:3001'],
    ['10.0.0.255', '10.0.0.255'],
    ['[::1]', '[::1]'],
    ['[::1]:8080', '[::1]:8080'],
    ['[0:0:0:0:0:0:0:1]:8080', '[::1]:8080'],
    ['[2001:DB8::1]', '[2001:db8::1]'],
    ['xn--bcher-kva.example', 'xn--bcher-kva.example'],
    ['a-b.c1.example:65535', 'a-b.c1.example:65535'],
    ['node', 'node'],
  ])('accepts %s as %s', (input, expected) => {
    expect(parseDomain(input)).toEqual({ ok: true, value: expected });
  });

  it.each([
    ['', /empty/],
    ['beta.example:0', /port/],
    ['beta.example:65536', /port/],
    ['beta.example:08443', /port/],
    ['beta.example:', /port/],
    ['beta.example:http', /port/],
    ['https://beta.example', /port|IPv6/],
    ['beta.example/path', /label/],
    ['beta..example', /empty label/],
    ['.beta.example', /empty label/],
    ['beta.example.', /empty label/],
    ['-beta.example', /label/],
    ['beta_.example', /label/],
    ['bücher.example', /label/],
    ['user@beta.example', /label/],
    ['::1', /brackets/],
    ['[::1', /closing/],
    ['[::1]x', /unexpected/],
    ['[fe80::1%eth0]', /zone|IPv6/],
    ['[not-ip]', /IPv6/],
    ['256.0.0.1', /IPv4/],
    ['01.2.3.4', /IPv4/],
    ['1.2.3', /dotted-quad/],
    ['example.123', /IP address/],
    ['a'.repeat(64) + '.example', /label/],
    [`${'a.'.repeat(124)}example`, /253/],
    ['a'.repeat(300), /too long/],
    [' beta.example', /label/],
  ])('rejects %j with a reason', (input, reason) => {
    const parsed = parseDomain(input);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.reason).toMatch(reason);
  });

  it('is idempotent and stable on normalised output', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), (input) => {
        const parsed = parseDomain(input);
        if (parsed.ok) expect(parseDomain(parsed.value)).toEqual(parsed);
        else expect(parsed.reason.length).toBeGreaterThan(0);
      }),
      { numRuns: 1000 },
    );
  });

  it('accepts every IPv4 and IPv6 address fast-check can make', () => {
    fc.assert(
      fc.property(
        fc.ipV4(),
        fc.ipV6(),
        fc.option(fc.integer({ min: 1, max: 65535 })),
        (v4, v6, port) => {
          const suffix = port === null ? '' : `:${port}`;
          expect(parseDomain(v4 + suffix).ok).toBe(true);
          const six = parseDomain(`[${v6}]${suffix}`);
          expect(six.ok).toBe(true);
          if (six.ok) expect(parseDomain(six.value)).toEqual(six);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('domainSchema', () => {
  it('normalises and reports the reason', () => {
    expect(domainSchema.parse('Beta.EXAMPLE:8443')).toBe('beta.example:8443');
    const failed = domainSchema.safeParse('beta.example:99999');
    expect(failed.success).toBe(false);
    expect(failed.error?.issues[0]?.message).toMatch(/port/);
    expect(domainSchema.safeParse(42).success).toBe(false);
  });
});

describe('loopback and base URLs', () => {
  it.each([
    ['localhost', true],
    ['localhost:3000', true],
    ['127.0.0.1', true],
    ['127.255.3.4:8080', true],
    ['[::1]:3000', true],
    ['LOCALHOST', true],
    ['localhost.example', false],
    ['128.0.0.1', false],
    ['10.0.0.1', false],
    ['[::2]', false],
    ['beta.example', false],
    ['not a domain', false],
  ])('isLoopbackDomain(%s) = %s', (domain, expected) => {
    expect(isLoopbackDomain(domain)).toBe(expected);
  });

  it('uses http only for loopback hosts', () => {
    expect(baseUrlForDomain('beta.example')).toBe('https://beta.example');
    expect(baseUrlForDomain('beta.example:8443')).toBe('https://beta.example:8443');
    expect(baseUrlForDomain('localhost:3001')).toBe('http://localhost:3001');
    expect(baseUrlForDomain('127.0.0.1:3002')).toBe('http://127.0.0.1:3002');
    expect(baseUrlForDomain('[::1]:3003')).toBe('http://[::1]:3003');
    expect(baseUrlForDomain('Beta.Example')).toBe('https://beta.example');
    expect(() => baseUrlForDomain('evil.example/@x')).toThrow(TypeError);
  });
});
