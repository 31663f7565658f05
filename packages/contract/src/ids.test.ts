import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  LOCAL_HANDLE,
  POST_ID,
  REMOTE_HANDLE,
  authorHandleSchema,
  formatActorUrl,
  formatHandleAddress,
  formatSwarmPostId,
  handleAddressSchema,
  localHandleSchema,
  parseActorUrl,
  parseHandleAddress,
  parseLocalHandle,
  parseRemoteHandle,
  parseSwarmPostId,
} from './ids.ts';
import { parseDomain } from './node-domain.ts';
import type { Result } from './result.ts';

// Arbitraries for valid parts; domains are normalised once so identity can be compared.
const label = fc.stringMatching(/^[a-z0-9](?:[a-z0-9-]{0,8}[a-z0-9])?$/);
const dnsName = fc
  .array(label, { minLength: 1, maxLength: 4 })
  .filter((labels) => !/^[0-9]+$/.test(labels[labels.length - 1] ?? ''))
  .map((labels) => labels.join('.'));
const host = fc.oneof(
  dnsName,
  fc.ipV4(),
  fc.ipV6().map((v6) => `[${v6}]`),
  fc.constant('localhost'),
);
const domain = fc.tuple(host, fc.option(fc.integer({ min: 1, max: 65535 }))).map(([h, port]) => {
  const parsed = parseDomain(port === null ? h : `${h}:${port}`);
  if (!parsed.ok) throw new Error(`generator made an invalid domain: ${parsed.reason}`);
  return parsed.value;
});
const handle = fc.stringMatching(REMOTE_HANDLE);
const postId = fc.oneof(fc.uuid(), fc.stringMatching(POST_ID));

// Junk: arbitrary text, and near misses built from the separators the formats use.
const junk = fc.oneof(
  fc.string({ maxLength: 60 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc
    .tuple(
      fc.constantFrom('swarm:', 'swarm://', '@', ''),
      fc.string({ maxLength: 30 }),
      fc.constantFrom(':', '/', '@', ''),
      fc.string({ maxLength: 20 }),
    )
    .map((parts) => parts.join('')),
);

function expectRejectedWithReasonOrConsistent<T>(
  parsed: Result<T>,
  format: (value: T) => string,
  parse: (s: string) => Result<T>,
) {
  if (parsed.ok) expect(parse(format(parsed.value))).toEqual(parsed);
  else {
    expect(typeof parsed.reason).toBe('string');
    expect(parsed.reason.length).toBeGreaterThan(0);
  }
}

describe('handles', () => {
  it('REMOTE_HANDLE is tolerant, LOCAL_HANDLE strict and lower-case', () => {
    for (const h of ['alice', 'Alice', 'a', 'alice.smith', 'bob-2', '_x', 'a'.repeat(64)])
      expect(parseRemoteHandle(h).ok).toBe(true);
    for (const h of ['', '.alice', '-bob', 'a@b', 'a/b', 'a:b', 'a b', 'é', 'a'.repeat(65)]) {
      const parsed = parseRemoteHandle(h);
      expect(parsed.ok).toBe(false);
    }
    expect(parseLocalHandle('Alice_1')).toEqual({ ok: true, value: 'alice_1' });
    for (const h of ['al', 'a'.repeat(31), 'alice.smith', 'bob-2', 'émile'])
      expect(parseLocalHandle(h).ok).toBe(false);
    expect(localHandleSchema.parse('ALICE')).toBe('alice');
  });

  it('every local handle is a remote handle', () => {
    fc.assert(fc.property(fc.stringMatching(LOCAL_HANDLE), (h) => REMOTE_HANDLE.test(h)));
  });

  it('author handles are plain or handle@domain', () => {
    expect(authorHandleSchema.parse('alice')).toBe('alice');
    expect(authorHandleSchema.parse('alice@Beta.Example:8443')).toBe('alice@beta.example:8443');
    expect(authorHandleSchema.safeParse('alice@').success).toBe(false);
    expect(authorHandleSchema.safeParse('al ice').success).toBe(false);
    expect(handleAddressSchema.safeParse('alice').success).toBe(false);
  });
});

describe('handle addresses: handle@domain', () => {
  it('parses examples, including ports, IPv6 and a leading @', () => {
    expect(parseHandleAddress('alice@beta.example:8443')).toEqual({
      ok: true,
      value: { handle: 'alice', domain: 'beta.example:8443' },
    });
    expect(parseHandleAddress('@Bob@BETA.example')).toEqual({
      ok: true,
      value: { handle: 'Bob', domain: 'beta.example' },
    });
    expect(parseHandleAddress('carol@[::1]:3000')).toEqual({
      ok: true,
      value: { handle: 'carol', domain: '[::1]:3000' },
    });
  });

  it.each([
    ['alice', /@domain/],
    ['@alice', /@domain/],
    ['alice@', /domain/],
    ['@beta.example', /@domain/],
    ['al ice@beta.example', /handle/],
    ['alice@beta.example@gamma.example', /domain/],
    ['alice@beta.example:0', /port/],
  ])('rejects %j', (input, reason) => {
    const parsed = parseHandleAddress(input);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.reason).toMatch(reason);
  });

  it('parse ∘ format is the identity', () => {
    fc.assert(
      fc.property(handle, domain, (h, d) => {
        expect(parseHandleAddress(formatHandleAddress({ handle: h, domain: d }))).toEqual({
          ok: true,
          value: { handle: h, domain: d },
        });
      }),
    );
  });

  it('junk is rejected with a reason, or parses consistently', () => {
    fc.assert(
      fc.property(junk, (s) =>
        expectRejectedWithReasonOrConsistent(
          parseHandleAddress(s),
          formatHandleAddress,
          parseHandleAddress,
        ),
      ),
      {
        numRuns: 500,
      },
    );
  });

  it('refuses to format invalid parts', () => {
    expect(() => formatHandleAddress({ handle: 'a b', domain: 'beta.example' })).toThrow(TypeError);
    expect(() => formatHandleAddress({ handle: 'alice', domain: 'beta.example:0' })).toThrow(
      TypeError,
    );
  });
});

describe('swarm post ids: swarm:{domain}:{postId}', () => {
  it('takes the last segment as the post id, so domains may carry ports', () => {
    expect(
      parseSwarmPostId('swarm:beta.example:8443:6ba7b810-9dad-11d1-80b4-00c04fd430c8'),
    ).toEqual({
      ok: true,
      value: { domain: 'beta.example:8443', postId: '6ba7b810-9dad-11d1-80b4-00c04fd430c8' },
    });
    expect(parseSwarmPostId('swarm:[::1]:3000:42')).toEqual({
      ok: true,
      value: { domain: '[::1]:3000', postId: '42' },
    });
    expect(parseSwarmPostId('swarm:beta.example:p1')).toEqual({
      ok: true,
      value: { domain: 'beta.example', postId: 'p1' },
    });
  });

  it.each([
    ['beta.example:p1', /swarm:/],
    ['swarm:', /form/],
    ['swarm:beta.example', /form/],
    ['swarm::p1', /domain/],
    ['swarm:beta.example:', /post id/],
    ['swarm:beta.example:a/b', /post id/],
    ['swarm:beta.example:99999:p1', /port/],
    ['swarm://beta.example/p1', /domain/],
  ])('rejects %j', (input, reason) => {
    const parsed = parseSwarmPostId(input);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.reason).toMatch(reason);
  });

  it('parse ∘ format is the identity', () => {
    fc.assert(
      fc.property(domain, postId, (d, p) => {
        expect(parseSwarmPostId(formatSwarmPostId({ domain: d, postId: p }))).toEqual({
          ok: true,
          value: { domain: d, postId: p },
        });
      }),
    );
  });

  it('junk is rejected with a reason, or parses consistently', () => {
    fc.assert(
      fc.property(junk, (s) =>
        expectRejectedWithReasonOrConsistent(
          parseSwarmPostId(s),
          formatSwarmPostId,
          parseSwarmPostId,
        ),
      ),
      {
        numRuns: 500,
      },
    );
  });
});

describe('actor URLs: swarm://{domain}/{handle}', () => {
  it('parses examples', () => {
    expect(parseActorUrl('swarm://beta.example:8443/alice')).toEqual({
      ok: true,
      value: { domain: 'beta.example:8443', handle: 'alice' },
    });
    expect(formatActorUrl({ domain: 'Beta.Example', handle: 'alice' })).toBe(
      'swarm://beta.example/alice',
    );
  });

  it.each([
    ['https://beta.example/alice', /swarm:\/\//],
    ['swarm://beta.example', /form/],
    ['swarm://beta.example/', /handle/],
    ['swarm:///alice', /domain/],
    ['swarm://beta.example/alice/extra', /handle/],
  ])('rejects %j', (input, reason) => {
    const parsed = parseActorUrl(input);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.reason).toMatch(reason);
  });

  it('parse ∘ format is the identity', () => {
    fc.assert(
      fc.property(handle, domain, (h, d) => {
        expect(parseActorUrl(formatActorUrl({ handle: h, domain: d }))).toEqual({
          ok: true,
          value: { handle: h, domain: d },
        });
      }),
    );
  });

  it('junk is rejected with a reason, or parses consistently', () => {
    fc.assert(
      fc.property(junk, (s) =>
        expectRejectedWithReasonOrConsistent(parseActorUrl(s), formatActorUrl, parseActorUrl),
      ),
      { numRuns: 500 },
    );
  });
});
