import { expect, it } from 'vitest';
import type { z } from 'zod';

/**
 * Shared checks for wire schemas: the example is accepted, every listed required member is
 * required, every member with a wrong-typed value is rejected, unknown members are tolerated.
 */
type Path = string; // dotted, e.g. "like.actorHandle"

function clone<T>(value: T): T {
  return structuredClone(value);
}

function parentOf(root: Record<string, unknown>, path: Path): [Record<string, unknown>, string] {
  const keys = path.split('.');
  const last = keys.pop() as string;
  let node = root;
  for (const key of keys) node = node[key] as Record<string, unknown>;
  return [node, last];
}

export function withoutPath<T extends object>(value: T, path: Path): T {
  const copy = clone(value) as Record<string, unknown>;
  const [parent, key] = parentOf(copy, path);
  delete parent[key];
  return copy as T;
}

export function withPath<T extends object>(value: T, path: Path, replacement: unknown): T {
  const copy = clone(value) as Record<string, unknown>;
  const [parent, key] = parentOf(copy, path);
  parent[key] = replacement;
  return copy as T;
}

function leafPaths(value: unknown, prefix = ''): Path[] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return [];
  return Object.entries(value).flatMap(([key, member]) => {
    const path = prefix ? `${prefix}.${key}` : key;
    return [path, ...leafPaths(member, path)];
  });
}

function wrongTypeFor(value: unknown): unknown {
  if (typeof value === 'string') return 42;
  if (typeof value === 'number') return 'seven';
  if (typeof value === 'boolean') return 'true';
  if (Array.isArray(value)) return { not: 'an array' };
  if (typeof value === 'object' && value !== null) return 'not an object';
  return 42; // null (nullable members): a number is never valid
}

function valueAt(root: unknown, path: Path): unknown {
  return path
    .split('.')
    .reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], root);
}

export function checkWireShape<S extends z.ZodType>(
  schema: S,
  example: object,
  options: { required: Path[]; expected?: unknown; skipWrongType?: Path[] },
): void {
  it('accepts the example shape', () => {
    const parsed = schema.safeParse(example);
    expect(parsed.error?.issues ?? []).toEqual([]);
    if (options.expected !== undefined) expect(parsed.data).toEqual(options.expected);
  });

  it('tolerates unknown extra members (and drops them)', () => {
    const parsed = schema.safeParse({ ...example, unknownExtra: { any: 'thing' } });
    expect(parsed.success).toBe(true);
    expect(parsed.data as object).not.toHaveProperty('unknownExtra');
  });

  it.each(options.required)('requires %s', (path) => {
    expect(schema.safeParse(withoutPath(example, path)).success).toBe(false);
  });

  const typed = leafPaths(example).filter((path) => !(options.skipWrongType ?? []).includes(path));
  it.each(typed)('rejects a wrong-typed %s', (path) => {
    const value = valueAt(example, path);
    expect(schema.safeParse(withPath(example, path, wrongTypeFor(value))).success).toBe(false);
  });
}
