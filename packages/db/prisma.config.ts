import { defineConfig } from 'prisma/config';

// Config for the Prisma CLI (`prisma generate`, and `prisma migrate status|deploy` on machines
// that do have Prisma's engine binaries). Paths are relative to this file. The CLI only needs a
// URL for commands that touch a database, so a missing DATABASE_URL is fine for `generate`.
export default defineConfig({
  schema: '../../prisma/schema.prisma',
  migrations: { path: '../../prisma/migrations' },
  ...(process.env.DATABASE_URL?.startsWith('postgres')
    ? { datasource: { url: process.env.DATABASE_URL } }
    : {}),
});
