import type { Prisma, PrismaClient } from './generated/prisma/client.ts';

/** Queued transactions wait their turn (PGlite runs one at a time) rather than fail. */
export const TX_OPTIONS = { maxWait: 15_000, timeout: 15_000 } as const;

/**
 * Prisma rolls an interactive transaction back only when its callback throws; this carries a
 * failed result out of it. It is private: callers return failures, they never throw them.
 */
class Rollback<R> {
  constructor(readonly result: R) {}
}

/**
 * Runs `work` in one transaction and answers what it returns. A failed result (`{ ok: false }`,
 * the contract's `Result` shape, typed structurally because `db` imports no other package) rolls
 * every write of `work` back; a success commits. A thrown error rolls back and propagates: that
 * is a bug or an outage, not an answer.
 */
export async function commitIfOk<R extends { ok: boolean }>(
  prisma: Pick<PrismaClient, '$transaction'>,
  work: (tx: Prisma.TransactionClient) => Promise<R>,
): Promise<R> {
  try {
    return await prisma.$transaction(async (tx) => {
      const result = await work(tx);
      if (!result.ok) throw new Rollback(result);
      return result;
    }, TX_OPTIONS);
  } catch (error) {
    if (error instanceof Rollback) return error.result as R;
    throw error;
  }
}
