import { describe, expect, it } from 'vitest';
import { MIGRATIONS_DIR, SCHEMA_HEAD } from '../src/index.ts';
import { readMigrationsFolder } from '../src/migrations/migration-files.ts';

describe('SCHEMA_HEAD', () => {
  it('names the newest folder of prisma/migrations (readiness waits for it)', async () => {
    const folder = await readMigrationsFolder(MIGRATIONS_DIR);
    expect(SCHEMA_HEAD).toBe(folder.migrations.at(-1)?.name);
  });
});
