import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../src/front-door.ts';

// "A source file past 500 lines is split" (docs/architecture.md, "Conventions the code relies
// on"): by use case, never excused in a header. This walks the source trees as they are on disk,
// tests inside them included; only the generated Prisma client is exempt.

const MAX_LINES = 500;
const SOURCE = /\.(ts|tsx|js|mjs|cjs|svelte|css|html)$/;
const EXEMPT = ['packages/db/src/generated'];

/** `apps/*\/src` and `packages/*\/src` under `root`. */
function sourceRoots(root: string): string[] {
  return ['apps', 'packages'].flatMap((group) => {
    let names: string[];
    try {
      names = readdirSync(join(root, group));
    } catch {
      return [];
    }
    return names.map((name) => join(root, group, name, 'src'));
  });
}

function* filesUnder(dir: string, root: string): Generator<string> {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const entry of entries) {
    const path = join(dir, entry.name);
    const rel = relative(root, path).split('\\').join('/');
    if (entry.name === 'node_modules' || EXEMPT.includes(rel)) continue;
    if (entry.isDirectory()) yield* filesUnder(path, root);
    else if (entry.isFile() && SOURCE.test(entry.name)) yield rel;
  }
}

const lineCount = (text: string) => text.split('\n').length - (text.endsWith('\n') ? 1 : 0);

/** The source files under `root` longer than MAX_LINES, with their length. */
function oversizedFiles(root: string): string[] {
  const found: string[] = [];
  for (const dir of sourceRoots(root)) {
    for (const file of filesUnder(dir, root)) {
      const lines = lineCount(readFileSync(join(root, file), 'utf8'));
      if (lines > MAX_LINES) found.push(`${file}: ${lines} lines`);
    }
  }
  return found.sort();
}

describe('no source file is over 500 lines', () => {
  it('finds a long file, a long test and a long component, and lets the exempt tree be', () => {
    const root = mkdtempSync(join(tmpdir(), 'file-size-'));
    try {
      const write = (file: string, lines: number) => {
        mkdirSync(join(root, file, '..'), { recursive: true });
        writeFileSync(join(root, file), 'x\n'.repeat(lines));
      };
      write('packages/domain/src/deep/long.service.ts', MAX_LINES + 1);
      write('packages/domain/src/long.test.ts', MAX_LINES + 1);
      write('apps/web/src/lib/Long.svelte', MAX_LINES + 1);
      write('packages/domain/src/fits.ts', MAX_LINES);
      write('packages/db/src/generated/prisma/client.ts', 5 * MAX_LINES);
      write('packages/domain/test/long.int.test.ts', 5 * MAX_LINES);
      expect(oversizedFiles(root)).toEqual([
        'apps/web/src/lib/Long.svelte: 501 lines',
        'packages/domain/src/deep/long.service.ts: 501 lines',
        'packages/domain/src/long.test.ts: 501 lines',
      ]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('holds for apps/*/src and packages/*/src', () => {
    expect(oversizedFiles(repoRoot)).toEqual([]);
  });
});
