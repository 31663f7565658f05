import { commitIfOk as commitInPrisma, type Db, type Prisma } from '@swarm/db';

// The one error model's value types (`Refusal`, `refuse`) are pure and live in @swarm/contract,
// where every layer can use them; what needs a database lives here.
export { refusal, refuse, type Refusal } from '@swarm/contract';
export { TX_OPTIONS } from '@swarm/db';

export type Tx = Prisma.TransactionClient;

/**
 * Runs `work` in one transaction and answers what it returns: a failed result rolls every write
 * back, a success commits (`commitIfOk` of @swarm/db, which auth's sign-up uses too). Refusals
 * are returned, never thrown.
 */
export function commitIfOk<R extends { ok: boolean }>(
  db: Pick<Db, 'prisma'>,
  work: (tx: Tx) => Promise<R>,
): Promise<R> {
  return commitInPrisma(db.prisma, work);
}
