/**
 * RFC 8785 JSON Canonicalization Scheme (JCS), the input of every signature (docs/protocol.md,
 * Canonical JSON).
 *
 * Written out rather than taken from the `canonicalize` package so that the rules we rely on are
 * visible and so that inputs JCS forbids fail loudly instead of signing something ambiguous:
 * non-finite numbers, bigint, lone surrogates and cycles throw. ECMAScript's `JSON.stringify`
 * already produces the JCS forms of numbers (shortest round-trip, `1e+30`, `-0` → `0`) and of
 * strings (escape only `"`, `\` and controls; `\b \f \n \r \t` short forms, else `\u00xx`).
 * Nesting deeper than `CANONICAL_MAX_DEPTH` throws too: nothing we sign is nearly that deep, and
 * a hostile body nested thousands deep must cost linear time, not exhaust the stack.
 */
export function canonicalJson(value: unknown): string {
  const text = serialize(value, new Set());
  if (text === undefined)
    throw new TypeError(
      'canonicalJson: top-level value is not JSON (undefined, function or symbol)',
    );
  return text;
}

/** Arrays and objects inside one another, at most (the archive and every body are far below). */
export const CANONICAL_MAX_DEPTH = 64;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function serializeString(s: string): string {
  if (LONE_SURROGATE.test(s))
    throw new TypeError('canonicalJson: string contains a lone surrogate');
  return JSON.stringify(s);
}

function serialize(value: unknown, stack: Set<object>): string | undefined {
  switch (typeof value) {
    case 'undefined':
    case 'function':
    case 'symbol':
      return undefined; // dropped from objects, `null` in arrays: same as JSON.stringify
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      if (!Number.isFinite(value))
        throw new TypeError(`canonicalJson: ${value} is not a JSON number`);
      return JSON.stringify(value);
    case 'bigint':
      throw new TypeError('canonicalJson: bigint is not a JSON number');
    case 'string':
      return serializeString(value);
    case 'object':
      break;
  }
  if (value === null) return 'null';
  const obj = value as { toJSON?: unknown };
  if (typeof obj.toJSON === 'function')
    return serialize((obj.toJSON as () => unknown).call(obj), stack);
  if (stack.has(obj)) throw new TypeError('canonicalJson: cyclic structure');
  if (stack.size >= CANONICAL_MAX_DEPTH)
    throw new TypeError(`canonicalJson: nested deeper than ${CANONICAL_MAX_DEPTH}`);
  stack.add(obj);
  let out: string;
  if (Array.isArray(obj)) {
    out = `[${obj.map((item) => serialize(item, stack) ?? 'null').join(',')}]`;
  } else {
    const record = obj as Record<string, unknown>;
    // Default sort compares UTF-16 code units, which is exactly the JCS key order.
    const parts: string[] = [];
    for (const key of Object.keys(record).sort()) {
      const member = serialize(record[key], stack);
      if (member !== undefined) parts.push(`${serializeString(key)}:${member}`);
    }
    out = `{${parts.join(',')}}`;
  }
  stack.delete(obj);
  return out;
}
