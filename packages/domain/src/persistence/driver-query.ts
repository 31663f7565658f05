import type { Db, Prisma } from '@swarm/db';

// The statements every signed interaction runs (node auth, the pinned did, the like itself) go
// straight to the driver: Prisma's `$queryRaw` passes even raw SQL through its query compiler
// (wasm) and client, ~0.3 ms of CPU per statement where the driver needs ~0.04 ms, and ingest
// is CPU-bound. The SQL is still written as `Prisma.sql` templates (values always bound as
// parameters, never spliced). Only for single statements outside Prisma transactions: on PGlite
// the query waits for the one connection like Prisma's own queries do, on Postgres it takes a
// pooled connection of its own.

/** Statement texts prepared under a name (the hot path has a handful; the cap is a guard). */
const preparedNames = new Map<string, string>();
const PREPARED_MAX = 100;

/**
 * On Postgres, each pooled connection parses and plans a named statement once and then only
 * binds and executes it: the like's statement is long, and naming the hot statements took
 * about 40 % off Postgres's CPU per like in the ingest benchmark.
 */
function preparedName(text: string): string | undefined {
  let name = preparedNames.get(text);
  if (!name && preparedNames.size < PREPARED_MAX) {
    name = `swarm_hot_${preparedNames.size + 1}`;
    preparedNames.set(text, name);
  }
  return name;
}

/** Rows of one statement, run on the driver under Prisma (pg pool or PGlite). */
export async function driverQuery<Row>(db: Db, query: Prisma.Sql): Promise<Row[]> {
  // Dates as ISO text: both drivers would format them, each its own way; the SQL casts them.
  const values = query.values.map((value) => (value instanceof Date ? value.toISOString() : value));
  const result =
    db.kind === 'postgres'
      ? await db.pool.query({ name: preparedName(query.text), text: query.text, values })
      : await db.pglite.query(query.text, values);
  return result.rows as Row[];
}
