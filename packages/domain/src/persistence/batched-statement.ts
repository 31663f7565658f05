import DataLoader from 'dataloader';
import type { Db, Prisma } from '@swarm/db';
import { batchInput, type BatchColumns } from './catalog.ts';
import { driverQuery } from './driver-query.ts';

// Group commit for the statements every signed interaction runs. Each statement costs far more
// in round trip (a socket write and a wake-up on both sides, a parse, a commit) than in the rows
// it touches, so requests arriving together share one: while a batch is in flight the next one
// fills, then goes as ONE statement over a JSON array of every request's inputs, and each
// caller gets its own row back. Alone, a request waits one turn of the event loop, no more.

/** Rows per statement; a busy node sends several statements rather than one huge one. */
const MAX_BATCH = 100;
/** Statements of one kind in flight at once: one runs while the next fills. */
const MAX_IN_FLIGHT = 2;

export type { BatchColumns };

export interface BatchedStatementSpec<In, Out> {
  db: Db;
  /** The inputs' columns: `input` in the statement has these and `ord` (1-based, input order). */
  columns: BatchColumns;
  /** One input as a row of `columns` (JSON values: strings or null). */
  row: (input: In) => Record<string, string | null>;
  /**
   * The statement, given the `input` relation to select from. It must return one row per input,
   * with `ord` to say which, whatever it writes. Define it with `batchedSql` (catalog.ts) so the
   * statement test runs it.
   */
  statement: (input: Prisma.Sql) => Prisma.Sql;
  /** The caller's answer from its row. */
  result: (row: Record<string, unknown>) => Out;
}

/**
 * `run(input)` resolves with that input's answer; inputs of concurrent callers are sent
 * together. A statement is atomic: a failed batch wrote nothing, and it is retried one input at
 * a time, so a bad row (or a deadlock with another writer) fails only its own caller.
 */
export function createBatchedStatement<In, Out>(
  spec: BatchedStatementSpec<In, Out>,
): (input: In) => Promise<Out> {
  const { db, columns, row, statement, result } = spec;
  const sqlFor = (json: string) => statement(batchInput(columns, json));

  async function run(inputs: readonly In[]): Promise<(Out | Error)[]> {
    const rows = await driverQuery<Record<string, unknown>>(
      db,
      sqlFor(JSON.stringify(inputs.map(row))),
    );
    const byOrd = new Map(rows.map((r) => [Number(r.ord), r]));
    return inputs.map((_, index) => {
      const found = byOrd.get(index + 1);
      return found ? result(found) : new Error(`batched statement returned no row ${index + 1}`);
    });
  }

  // Group commit: at most MAX_IN_FLIGHT batches run; a batch that cannot start yet stays open,
  // and every caller arriving meanwhile joins it (up to MAX_BATCH).
  let inFlight = 0;
  const waiting: (() => void)[] = [];
  const schedule = (dispatch: () => void) => {
    if (inFlight < MAX_IN_FLIGHT) {
      inFlight++;
      setImmediate(dispatch);
    } else {
      waiting.push(dispatch);
    }
  };
  const release = () => {
    const next = waiting.shift();
    if (next) setImmediate(next);
    else inFlight--;
  };

  const loader = new DataLoader<In, Out>(
    async (inputs) => {
      try {
        return await run(inputs);
      } catch (error) {
        if (inputs.length === 1) throw error;
        return Promise.all(
          inputs.map((input) =>
            run([input]).then(
              ([answer]) => answer as Out | Error,
              (failure: unknown) =>
                failure instanceof Error ? failure : new Error(String(failure)),
            ),
          ),
        );
      } finally {
        release();
      }
    },
    { cache: false, maxBatchSize: MAX_BATCH, batchScheduleFn: schedule },
  );
  return (input) => loader.load(input);
}

/**
 * The same statement for one input inside the caller's transaction (no group commit): for a
 * write that must commit or roll back with others of the caller.
 */
export async function runBatchedOnce<In, Out>(
  tx: Pick<Prisma.TransactionClient, '$queryRaw'>,
  spec: Omit<BatchedStatementSpec<In, Out>, 'db'>,
  input: In,
): Promise<Out> {
  const sql = spec.statement(batchInput(spec.columns, JSON.stringify([spec.row(input)])));
  const [found] = await tx.$queryRaw<Record<string, unknown>[]>(sql);
  if (!found) throw new Error('batched statement returned no row 1');
  return spec.result(found);
}
