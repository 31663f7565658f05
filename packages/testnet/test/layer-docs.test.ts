import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../src/front-door.ts';

// The directions a reader is told (README's list, docs/architecture.md's table) are the ones
// `pnpm lint` enforces (eslint.boundaries.js): once they disagreed, and the docs were wrong.

type Directions = Record<string, string[]>;

// The rules as `pnpm lint` loads them (a plain ES module of the workspace root).
const rules = (await import(pathToFileURL(join(repoRoot, 'eslint.boundaries.js')).href)) as {
  LAYERS: Record<string, { dir: string; may: string[] }>;
  TESTS_MAY: Directions;
};
const lint = rules.LAYERS;
const lintTests = rules.TESTS_MAY;

/** The backquoted names of a piece of text, in order. */
const names = (text: string) => [...text.matchAll(/`([\w/-]+)`/g)].map(([, name]) => name!);
const layerOf = (name: string) => name.replace(/^(apps|packages)\//, '');
const sorted = (directions: Directions): Directions =>
  Object.fromEntries(
    Object.entries(directions)
      .map(([layer, may]) => [layer, [...may].sort()] as const)
      .sort(([a], [b]) => a.localeCompare(b)),
  );

/** README's list: "- `domain` → `contract`, `db`: why". */
function readmeDirections(readme: string): Directions {
  const directions: Directions = {};
  for (const [, layer, targets] of readme.matchAll(/^- `([\w-]+)` → (.*?):/gm)) {
    directions[layer!] = targets!.startsWith('nothing') ? [] : names(targets!);
  }
  return directions;
}

/** docs/architecture.md's table: "| `domain` | `contract`, `db` | `testnet` |". */
function tableDirections(doc: string): { source: Directions; tests: Directions } {
  const source: Directions = {};
  const tests: Directions = {};
  for (const [, layer, may, testsMay] of doc.matchAll(
    /^\| `([\w/-]+)`\s*\|([^|]*)\|([^|]*)\|$/gm,
  )) {
    source[layerOf(layer!)] = names(may!);
    // "`domain` (in-memory limits)": the names, not the reasons.
    tests[layerOf(layer!)] = names(testsMay!);
  }
  return { source, tests };
}

const lintSource = () =>
  sorted(Object.fromEntries(Object.entries(lint).map(([layer, { may }]) => [layer, may])));

describe('the documented layer directions are the linted ones', () => {
  it('parses both forms (a wrong direction would show)', () => {
    expect(
      readmeDirections('- `db` → nothing of ours: x\n- `client-api` → `domain`, `auth`: y'),
    ).toEqual({ db: [], 'client-api': ['domain', 'auth'] });
    expect(tableDirections('| `apps/web` | `contract`, `api` | `db` (why) |').source).toEqual({
      web: ['contract', 'api'],
    });
  });

  it("README's list equals eslint.boundaries.js", () => {
    const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
    expect(sorted(readmeDirections(readme))).toEqual(lintSource());
  });

  it("docs/architecture.md's table equals eslint.boundaries.js, tests included", () => {
    const doc = readFileSync(join(repoRoot, 'docs/architecture.md'), 'utf8');
    const { source, tests } = tableDirections(doc);
    expect(sorted(source)).toEqual(lintSource());
    expect(sorted(tests)).toEqual(sorted(lintTests));
  });
});
