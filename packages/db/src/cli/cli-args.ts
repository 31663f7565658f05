import { resolve } from 'node:path';
import type { SchemaSources } from '../migrations/schema-diff.ts';

/**
 * `--schema <file>` and `--migrations <dir>` (relative to where pnpm was run), for checking a
 * schema other than the repo's; everything else is returned as positional arguments.
 */
export function parseSourceArgs(argv: string[]): { sources: SchemaSources; positional: string[] } {
  const base = process.env.INIT_CWD || process.cwd();
  const sources: SchemaSources = {};
  const positional: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    const [flag, inline] = arg.split('=', 2) as [string, string | undefined];
    if (flag === '--schema' || flag === '--migrations') {
      const value = inline ?? argv[++i];
      if (!value) throw new Error(`${flag} needs a path`);
      if (flag === '--schema') sources.schemaPath = resolve(base, value);
      else sources.migrationsDir = resolve(base, value);
    } else if (arg !== '--') {
      positional.push(arg);
    }
  }
  return { sources, positional };
}
