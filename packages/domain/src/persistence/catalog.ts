import { Prisma } from '@swarm/db';

// Every raw SQL statement of the node is defined through this module, so that one test
// (packages/domain/test/persistence-statements.int.test.ts) can run each of them against the
// migrated schema: a renamed table or column fails CI, not a request in production. Prisma's
// typed queries need no such test (the generated client tracks the schema); raw SQL does.

/** Column name → SQL type of a batched statement's inputs (see `batched-statement.ts`). */
export type BatchColumns = Record<string, 'text' | 'uuid' | 'timestamptz' | 'integer' | 'boolean'>;

export interface CatalogEntry {
  /** Unique, `area.what` (e.g. `interactions.like`). */
  name: string;
  /** The statement with example values, ready to EXPLAIN. */
  example: () => Prisma.Sql;
}

const catalog = new Map<string, CatalogEntry>();

function register(entry: CatalogEntry) {
  if (catalog.has(entry.name)) throw new Error(`raw statement ${entry.name} defined twice`);
  catalog.set(entry.name, entry);
}

/**
 * A raw statement: `build` turns its arguments into SQL (values always bound, never spliced);
 * `example` are arguments the statement can be planned with (values need not exist).
 */
export function sqlStatement<Args extends unknown[]>(
  name: string,
  example: Args,
  build: (...args: Args) => Prisma.Sql,
): (...args: Args) => Prisma.Sql {
  register({ name, example: () => build(...example) });
  return build;
}

/**
 * The `input` relation of a batched statement: one row per caller, from a JSON array of rows
 * with `columns`, numbered by `ord` (1-based, in input order).
 */
export function batchInput(columns: BatchColumns, json: string): Prisma.Sql {
  const names = Object.keys(columns);
  const definitions = names.map((name) => `${name} ${columns[name]}`).join(', ');
  return Prisma.sql`ROWS FROM (jsonb_to_recordset(${json}::jsonb) AS (${Prisma.raw(definitions)}))
        WITH ORDINALITY AS input(${Prisma.raw(names.join(', '))}, ord)`;
}

/** A statement over a batch of inputs (`createBatchedStatement`): it must return `ord`. */
export interface BatchedSql {
  columns: BatchColumns;
  statement: (input: Prisma.Sql) => Prisma.Sql;
}

/** A batched statement, registered with one input row of nulls as its example. */
export function batchedSql(name: string, spec: BatchedSql): BatchedSql {
  register({ name, example: () => spec.statement(batchInput(spec.columns, '[{}]')) });
  return spec;
}

/** Every raw statement defined so far (import `persistence/index.ts` to load them all). */
export function rawStatements(): CatalogEntry[] {
  return [...catalog.values()];
}
