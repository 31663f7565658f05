import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commitIfOk, type Db } from '../src/index.ts';
import { createTestDb } from '../src/testing/index.ts';

// `commitIfOk` is the one way a use case rolls a transaction back: by returning a failed result.
// Run on both databases: PGlite here, Postgres under TEST_DATABASE_URL (.ci/run does both).

let db: Db;

beforeAll(async () => {
  db = await createTestDb();
});
afterAll(async () => {
  await db?.close();
});

let seq = 0;
const handles = () => [`tx${++seq}a`, `tx${seq}b`] as const;
const count = (names: readonly string[]) =>
  db.prisma.user.count({ where: { handle: { in: [...names] } } });

describe('commitIfOk', () => {
  it('commits every write of a callback that succeeds, and answers its result', async () => {
    const names = handles();
    const result = await commitIfOk(db.prisma, async (tx) => {
      for (const handle of names) await tx.user.create({ data: { handle, passwordHash: 'x' } });
      return { ok: true as const, value: 'done' };
    });
    expect(result).toEqual({ ok: true, value: 'done' });
    expect(await count(names)).toBe(2);
  });

  it('rolls back every write of a callback that returns a failed result, and answers it', async () => {
    const names = handles();
    const failed = { ok: false as const, reason: { code: 'INVALID_REQUEST', message: 'No.' } };
    const result = await commitIfOk(db.prisma, async (tx) => {
      for (const handle of names) await tx.user.create({ data: { handle, passwordHash: 'x' } });
      return failed;
    });
    expect(result).toBe(failed);
    expect(await count(names)).toBe(0);
  });

  it('rolls back and rethrows what the callback throws (a bug, not an answer)', async () => {
    const names = handles();
    const bug = new Error('a programmer error');
    await expect(
      commitIfOk(db.prisma, async (tx) => {
        for (const handle of names) await tx.user.create({ data: { handle, passwordHash: 'x' } });
        throw bug;
      }),
    ).rejects.toBe(bug);
    expect(await count(names)).toBe(0);
  });
});
