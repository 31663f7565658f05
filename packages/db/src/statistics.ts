import type { Db } from './create-db.ts';

/**
 * The embedded database has no autovacuum, so nothing gathers the planner's statistics: a table
 * that grew from empty keeps "no rows" estimates and, say, a feed read sorts every copy instead
 * of walking the newest-first index (docs/database.md "Planner statistics"). `ANALYZE` samples
 * every table (a bounded sample, about a second on a large node). Postgres does this itself.
 */
export async function refreshPlannerStatistics(db: Db): Promise<boolean> {
  if (db.kind !== 'pglite') return false;
  await db.prisma.$executeRawUnsafe('ANALYZE');
  return true;
}
