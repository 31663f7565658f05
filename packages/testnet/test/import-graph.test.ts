import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { parseCircular, parseDependencyTree, type DependencyTree } from 'dpdm';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../src/front-door.ts';

// No import cycles in any package's source, and the domain's folders in the levels that
// docs/architecture.md ("Inside the domain") lists. Type imports count: a reader follows them.
// Svelte components are not parsed (dpdm reads TypeScript and JavaScript).

/**
 * The import graph of the TypeScript files under `dir`, paths relative to it; imports leaving
 * it are left out, and so is the Prisma client `packages/db` generates.
 */
async function importGraph(dir: string): Promise<DependencyTree> {
  const inside = dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&') + '\\' + sep;
  return parseDependencyTree(`${dir}/**/*.ts`, {
    context: dir,
    transform: false,
    skipDynamicImports: false,
    exclude: new RegExp(`^(?!${inside})|node_modules|\\${sep}generated\\${sep}`),
  });
}

/** Each file's imports of files of the graph (a file left out maps to null). */
function edges(tree: DependencyTree): [string, string][] {
  const out: [string, string][] = [];
  for (const [file, deps] of Object.entries(tree)) {
    for (const dep of deps ?? []) if (dep.id && tree[dep.id]) out.push([file, dep.id]);
  }
  return out;
}

const sources = ['packages', 'apps'].flatMap((group) =>
  readdirSync(join(repoRoot, group)).map((name) => `${group}/${name}/src`),
);

const scratch = mkdtempSync(join(tmpdir(), 'import-graph-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('import cycles', () => {
  it('finds a cycle made of type imports (the check would catch one)', async () => {
    writeFileSync(
      join(scratch, 'a.ts'),
      "import type { B } from './b.ts';\nexport type A = B[];\n",
    );
    writeFileSync(join(scratch, 'b.ts'), "import type { A } from './a.ts';\nexport type B = A;\n");
    expect(parseCircular(await importGraph(scratch))).toHaveLength(1);
  });

  it.each(sources)('none in %s', async (source) => {
    const dir = join(repoRoot, source);
    const cycles = parseCircular(await importGraph(dir)).map((cycle) => cycle.join(' → '));
    expect(cycles).toEqual([]);
  });
});

/** docs/architecture.md's table: "| 3 | `registry`, `security` | what |" → name → level. */
function documentedLevels(doc: string): Map<string, number> {
  const section = doc.slice(doc.indexOf('## Inside the domain'));
  const levels = new Map<string, number>();
  for (const [, level, names] of section.matchAll(/^\| (\d+)\s*\|([^|]*)\|/gm)) {
    for (const [, name] of names!.matchAll(/`([\w.-]+)`/g)) levels.set(name!, Number(level));
  }
  return levels;
}

describe("the domain's folders in levels (docs/architecture.md)", () => {
  const domain = join(repoRoot, 'packages/domain/src');
  const levels = documentedLevels(readFileSync(join(repoRoot, 'docs/architecture.md'), 'utf8'));
  /** A folder, or a file at the root of src. */
  const unitOf = (file: string) => file.split(sep)[0]!;

  it('reads the table (a wrong level would show)', () => {
    expect(levels.get('boot.ts')).toBe(9);
    expect(levels.get('persistence')).toBe(0);
    expect(levels.get('interactions')).toBeGreaterThan(levels.get('peers')!);
  });

  it('lists every folder and root file once', () => {
    const units = readdirSync(domain).filter((name) => !name.endsWith('.test.ts'));
    expect([...levels.keys()].sort()).toEqual(units.sort());
  });

  it('has each folder import only its own files and lower levels', async () => {
    const across = edges(await importGraph(domain))
      .filter(([file]) => !file.endsWith('.test.ts'))
      .map(([file, dep]) => ({ file, dep, from: unitOf(file), to: unitOf(dep) }))
      .filter(({ from, to }) => from !== to);
    // The graph is the domain's (a wrong path would leave nothing to check).
    expect(across).toContainEqual(expect.objectContaining({ from: 'actions', to: 'interactions' }));
    const upward = across
      .filter(({ from, to }) => {
        const [a, b] = [levels.get(from), levels.get(to)];
        // Files at the root of src on one row may use each other (ports; the composition).
        const rootFiles = from.endsWith('.ts') && to.endsWith('.ts') && a === b;
        return a === undefined || b === undefined || (b >= a && !rootFiles);
      })
      .map(({ file, dep }) => `${file} → ${dep}`);
    expect(upward).toEqual([]);
  });
});
