import canonicalize from 'canonicalize';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CANONICAL_MAX_DEPTH, canonicalJson } from './canonical-json.ts';

function fromBits(hex: string): number {
  const view = new DataView(new ArrayBuffer(8));
  view.setBigUint64(0, BigInt(`0x${hex}`));
  return view.getFloat64(0);
}

describe('canonicalJson (RFC 8785)', () => {
  it('matches the RFC 8785 §3.2.2 example', () => {
    const input = JSON.parse(
      String.raw`{"numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
        "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
        "literals": [null, true, false]}`,
    );
    expect(canonicalJson(input)).toBe(
      String.raw`{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}`,
    );
  });

  it('sorts keys by UTF-16 code units (RFC 8785 §3.2.3 example)', () => {
    const input = {
      '\u20ac': 'Euro Sign',
      '\r': 'Carriage Return',
      '\ufb33': 'Hebrew Letter Dalet With Dagesh',
      '1': 'One',
      '\ud83d\ude00': 'Emoji: Grinning Face',
      '\u0080': 'Control',
      '\u00f6': 'Latin Small Letter O With Diaeresis',
    };
    expect(canonicalJson(input)).toBe(
      '{"\\r":"Carriage Return","1":"One","\u0080":"Control","\u00f6":"Latin Small Letter O With Diaeresis",' +
        '"\u20ac":"Euro Sign","\ud83d\ude00":"Emoji: Grinning Face","\ufb33":"Hebrew Letter Dalet With Dagesh"}',
    );
  });

  // RFC 8785 Appendix B: IEEE-754 bit patterns and their canonical text.
  const numberVectors: Array<[string, string]> = [
    ['0000000000000000', '0'],
    ['8000000000000000', '0'],
    ['0000000000000001', '5e-324'],
    ['8000000000000001', '-5e-324'],
    ['7fefffffffffffff', '1.7976931348623157e+308'],
    ['ffefffffffffffff', '-1.7976931348623157e+308'],
    ['4340000000000000', '9007199254740992'],
    ['c340000000000000', '-9007199254740992'],
    ['4430000000000000', '295147905179352830000'],
    ['44b52d02c7e14af5', '9.999999999999997e+22'],
    ['44b52d02c7e14af6', '1e+23'],
    ['44b52d02c7e14af7', '1.0000000000000001e+23'],
    ['444b1ae4d6e2ef4e', '999999999999999700000'],
    ['444b1ae4d6e2ef4f', '999999999999999900000'],
    ['444b1ae4d6e2ef50', '1e+21'],
    ['3eb0c6f7a0b5ed8c', '9.999999999999997e-7'],
    ['3eb0c6f7a0b5ed8d', '0.000001'],
    ['41b3de4355555553', '333333333.3333332'],
    ['41b3de4355555554', '333333333.33333325'],
    ['41b3de4355555555', '333333333.3333333'],
    ['41b3de4355555556', '333333333.3333334'],
    ['41b3de4355555557', '333333333.33333343'],
    ['becbf647612f3696', '-0.0000033333333333333333'],
    ['43143ff3c1cb0959', '1424953923781206.2'],
  ];
  it.each(numberVectors)('number 0x%s → %s', (bits, text) => {
    expect(canonicalJson(fromBits(bits))).toBe(text);
  });

  it('serialises numbers in their shortest ECMAScript form', () => {
    expect(canonicalJson([1e30, 4.5, 4.5, -0, 0.1, 100, 1e21, 1e-7, 123456789012345680000])).toBe(
      '[1e+30,4.5,4.5,0,0.1,100,1e+21,1e-7,123456789012345680000]',
    );
  });

  it('escapes controls as \\u00xx except the short forms, and nothing else', () => {
    const all = Array.from({ length: 0x20 }, (_, i) => String.fromCharCode(i)).join('');
    expect(canonicalJson(all)).toBe(
      '"\\u0000\\u0001\\u0002\\u0003\\u0004\\u0005\\u0006\\u0007\\b\\t\\n\\u000b\\f\\r\\u000e\\u000f' +
        '\\u0010\\u0011\\u0012\\u0013\\u0014\\u0015\\u0016\\u0017\\u0018\\u0019\\u001a\\u001b\\u001c\\u001d\\u001e\\u001f"',
    );
    expect(canonicalJson('"\\/\u007f\u2028é😀')).toBe('"\\"\\\\/\u007f\u2028é😀"');
  });

  it('drops undefined members, nulls undefined array slots, keeps array order, no whitespace', () => {
    expect(
      canonicalJson({
        b: [3, undefined, 1],
        a: undefined,
        c: { z: null, y: { x: true } },
        f: () => 1,
      }),
    ).toBe('{"b":[3,null,1],"c":{"y":{"x":true},"z":null}}');
    expect(canonicalJson({})).toBe('{}');
    expect(canonicalJson([])).toBe('[]');
  });

  it('sorts nested object keys at every depth', () => {
    expect(canonicalJson({ z: { b: 1, a: [{ d: 1, c: 2 }] }, a: 0 })).toBe(
      '{"a":0,"z":{"a":[{"c":2,"d":1}],"b":1}}',
    );
  });

  it('uses toJSON like JSON.stringify (dates become their ISO string)', () => {
    expect(canonicalJson({ at: new Date('2026-11-22T14:00:00Z') })).toBe(
      '{"at":"2026-11-22T14:00:00.000Z"}',
    );
  });

  it('refuses what JCS cannot represent', () => {
    expect(() => canonicalJson(Number.NaN)).toThrow(TypeError);
    expect(() => canonicalJson({ a: Number.POSITIVE_INFINITY })).toThrow(TypeError);
    expect(() => canonicalJson(1n)).toThrow(TypeError);
    expect(() => canonicalJson('\ud800')).toThrow(/lone surrogate/);
    expect(() => canonicalJson({ '\udc00x': 1 })).toThrow(/lone surrogate/);
    expect(() => canonicalJson(undefined)).toThrow(TypeError);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => canonicalJson(cyclic)).toThrow(/cyclic/);
  });

  it('refuses nesting past its bound, so a hostile body costs linear time (red team, issue 22)', () => {
    const nest = (depth: number, inner: unknown): unknown =>
      depth === 0 ? inner : { a: nest(depth - 1, inner) };
    expect(canonicalJson(nest(CANONICAL_MAX_DEPTH - 1, []))).toMatch(/^\{"a":/);
    expect(() => canonicalJson(nest(CANONICAL_MAX_DEPTH, []))).toThrow(/nested deeper than/);
    // 1,000 deep with 100,000 empty arrays at the bottom: once seconds of CPU (every array
    // searched the path above it), now refused at depth 64.
    const leaves = Array.from({ length: 100_000 }, () => []);
    expect(() => canonicalJson(nest(1_000, leaves))).toThrow(/nested deeper than/);
    // The same array twice (not a cycle) is fine.
    const shared = [1];
    expect(canonicalJson({ a: shared, b: shared })).toBe('{"a":[1],"b":[1]}');
  });

  it('agrees with the canonicalize package and round-trips through JSON.parse', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = canonicalJson(value);
        expect(text).toBe(canonicalize(value));
        expect(canonicalJson(JSON.parse(text))).toBe(text);
      }),
      { numRuns: 300 },
    );
  });

  it('does not depend on member insertion order', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 2 })), (record) => {
        const reversed = Object.fromEntries(Object.entries(record).reverse());
        expect(canonicalJson(reversed)).toBe(canonicalJson(record));
      }),
      { numRuns: 200 },
    );
  });
});
