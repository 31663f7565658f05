// @swarm/db: the Prisma client factory (PGlite | Postgres), migrations, drift check.
// Test databases: `@swarm/db/testing`.
export { DEFAULT_POOL_SIZE, createDb, createPostgresDb, wrapPglite } from './create-db.ts';
export type { Db, DbConfig, PgliteDb, PostgresDb } from './create-db.ts';
export { parseDatabaseUrl, redactUrl } from './database-url.ts';
export type { DatabaseTarget } from './database-url.ts';
export {
  createMigratedDb,
  migrateDb,
  MigrationError,
  PRISMA_MIGRATE_LOCK_ID,
} from './migrations/apply-migrations.ts';
export type { MigrateOptions, MigrateResult } from './migrations/apply-migrations.ts';
export {
  checkMigrations,
  createMigration,
  diffMigrationsToSchema,
  EmptyMigrationError,
} from './migrations/schema-diff.ts';
export type {
  CheckResult,
  CreatedMigration,
  SchemaDiff,
  SchemaSources,
} from './migrations/schema-diff.ts';
export { MIGRATIONS_DIR, SCHEMA_PATH } from './paths.ts';
export { SCHEMA_HEAD } from './migrations/schema-head.ts';
export { localActorKey } from './actor-keys.ts';
export { restorePgliteDataDir } from './pglite.ts';
export { commitIfOk, TX_OPTIONS } from './transaction.ts';
export { refreshPlannerStatistics } from './statistics.ts';
// The generated client: PrismaClient, the Prisma namespace, model types and enums.
export * from './generated/prisma/client.ts';
