import { err, ok, RefusalError, type ErrorCode, type Refusal, type Result } from '@swarm/contract';
import type { Db, Prisma } from '@swarm/db';

// The one error model's value types (`Refusal`, `refuse`, `RefusalError`) are pure and live in
// @swarm/contract, where every layer can use them; what needs a database lives here.
export { isRefusalError, refusal, refuse, RefusalError, type Refusal } from '@swarm/contract';

export type Tx = Prisma.TransactionClient;

/** Queued transactions wait their turn (PGlite runs one at a time) rather than fail. */
export const TX_OPTIONS = { maxWait: 15_000, timeout: 15_000 } as const;

/**
 * Runs `work` in one transaction. A `RefusalError` thrown inside rolls everything back and is
 * the answer (`{ ok: false, reason }`); any other error is rethrown (a bug or an outage).
 */
export async function inTransaction<T, C extends ErrorCode = ErrorCode>(
  db: Pick<Db, 'prisma'>,
  work: (tx: Tx) => Promise<T>,
): Promise<Result<T, Refusal<C>>> {
  try {
    return ok(await db.prisma.$transaction(work, TX_OPTIONS));
  } catch (error) {
    if (error instanceof RefusalError) return err(error.refusal as Refusal<C>);
    throw error;
  }
}
