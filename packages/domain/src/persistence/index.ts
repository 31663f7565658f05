// Raw SQL and the driver-level machinery (group commit, prepared statements), in one place:
// every statement is in the catalog that packages/domain/test/persistence-statements.int.test.ts
// runs against the migrated schema.
export * from './batched-statement.ts';
export * from './catalog.ts';
export * from './delivery.sql.ts';
export * from './driver-query.ts';
export * from './interactions.sql.ts';
export * from './live.sql.ts';
export * from './messages.sql.ts';
export * from './node-keys.sql.ts';
export * from './ops.sql.ts';
export * from './registry.sql.ts';
export * from './ownership.sql.ts';
export * from './search.sql.ts';
export * from './visibility.sql.ts';
export * from './remote-posts.sql.ts';
export * from './client-reads.sql.ts';
