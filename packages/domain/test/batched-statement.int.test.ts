import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Prisma, type Db } from '@swarm/db';
import { createTestDb } from '@swarm/db/testing';
import { createBatchedStatement } from '../src/persistence/batched-statement.ts';

// Group commit on a real database (PGlite, or Postgres with TEST_DATABASE_URL): callers that
// arrive together share one statement, each gets its own answer, and one bad input fails alone.

let db: Db;
beforeAll(async () => {
  db = await createTestDb();
});
afterAll(async () => {
  await db.close();
});

/** Doubles a number given as text; `txid_current()` tells which statement answered. */
function doubler() {
  return createBatchedStatement<string, { doubled: number; tx: string }>({
    db,
    columns: { value: 'text' },
    row: (value) => ({ value }),
    statement: (input) => Prisma.sql`
      SELECT input.ord, input.value::int * 2 AS doubled, txid_current()::text AS tx
      FROM ${input}`,
    result: (row) => ({ doubled: Number(row.doubled), tx: String(row.tx) }),
  });
}

describe('createBatchedStatement', () => {
  it('answers callers arriving together from one statement, each with its own row', async () => {
    const double = doubler();
    const answers = await Promise.all(['1', '2', '3', '4', '5'].map((v) => double(v)));
    expect(answers.map((a) => a.doubled)).toEqual([2, 4, 6, 8, 10]);
    expect(new Set(answers.map((a) => a.tx)).size).toBe(1);
  });

  it('runs a caller alone when nobody else is waiting', async () => {
    const double = doubler();
    const first = await double('20');
    const second = await double('21');
    expect([first.doubled, second.doubled]).toEqual([40, 42]);
    expect(first.tx).not.toBe(second.tx);
  });

  it('fails only the caller whose input breaks the statement', async () => {
    const double = doubler();
    const answers = await Promise.allSettled(['1', 'not a number', '3'].map((v) => double(v)));
    expect(answers.map((a) => a.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(answers.flatMap((a) => (a.status === 'fulfilled' ? [a.value.doubled] : []))).toEqual([
      2, 6,
    ]);
  });

  it('answers everyone when more arrive than one statement takes', async () => {
    const double = doubler();
    const values = Array.from({ length: 450 }, (_, i) => String(i));
    const answers = await Promise.all(values.map((v) => double(v)));
    expect(answers.map((a) => a.doubled)).toEqual(values.map((v) => Number(v) * 2));
    const statements = new Set(answers.map((a) => a.tx)).size;
    expect(statements).toBeGreaterThanOrEqual(5); // at most 100 inputs a statement
    expect(statements).toBeLessThan(450);
  });

  it('writes nothing for a batch whose statement fails, then each input alone', async () => {
    await db.prisma.$executeRawUnsafe(
      'CREATE TABLE IF NOT EXISTS batch_test (value int PRIMARY KEY)',
    );
    const insert = createBatchedStatement<string, boolean>({
      db,
      columns: { value: 'text' },
      row: (value) => ({ value }),
      statement: (input) => Prisma.sql`
        WITH input AS (SELECT * FROM ${input}), added AS (
          INSERT INTO batch_test (value) SELECT value::int FROM input RETURNING value)
        SELECT input.ord, true AS inserted FROM input`,
      result: (row) => row.inserted === true,
    });
    const answers = await Promise.allSettled(['7', 'x', '8'].map((v) => insert(v)));
    expect(answers.map((a) => a.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    const rows = await db.prisma.$queryRawUnsafe<{ value: number }[]>(
      'SELECT value FROM batch_test ORDER BY value',
    );
    expect(rows.map((r) => r.value)).toEqual([7, 8]);
  });
});
