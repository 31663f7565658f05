// The newest migration this code needs (the last folder of prisma/migrations). Readiness checks
// it is applied (`/readyz`): the bundled web app carries no migrations folder, so the name is
// compiled in. `pnpm db:migrate:new` rewrites this file; test/schema-head.test.ts checks it.
export const SCHEMA_HEAD = '20261128123626_post_idempotency_keys_edited_at';
