import type { NodeContext } from '@swarm/domain';
import { auditAdmin } from '../admin-audit.ts';
import { errorResponse } from '../errors.ts';
import { createRouter } from '../router.ts';

/** The admin API's backup download (`swarm backup` in embedded mode, docs/deployment.md). */
export const BACKUP_PATH = '/api/swarm/admin/backup';

/**
 * GET /api/swarm/admin/backup (admin token, like every /api/swarm/admin/* path): the embedded
 * database as PGlite's own dump, a gzipped tar of its data directory, taken by the process
 * that holds it. No transaction is open while the files are read (the dump waits for running
 * ones and holds back new ones), so the copy is consistent while the node keeps running.
 * `swarm restore` loads it into a fresh data directory. A Postgres node answers 400: back it up
 * with pg_dump (`swarm backup` runs it when DATABASE_URL is set).
 */
export function backupRoutes() {
  const app = createRouter();
  app.get(BACKUP_PATH, async (c) => {
    const node: NodeContext = c.get('node');
    const { db } = node;
    if (db.kind !== 'pglite') {
      return errorResponse(
        c,
        'INVALID_REQUEST',
        'This node runs on Postgres: back it up with pg_dump (`swarm backup <file>` with DATABASE_URL set runs it).',
      );
    }
    // Flush the WAL into the data files first, so the dump is small and loads without replay.
    await db.pglite.exec('CHECKPOINT');
    const dump = await db.pglite._runExclusiveTransaction(() => db.pglite.dumpDataDir('gzip'));
    node.logger.info({ bytes: dump.size }, 'backup: dumped the embedded database');
    // A copy of everything (password hashes, messages): who took one is in the audit log.
    await auditAdmin(c, { action: 'backup.download', details: { bytes: dump.size } });
    return c.body(dump.stream(), 200, {
      'content-type': 'application/gzip',
      'content-length': String(dump.size),
      'content-disposition': 'attachment; filename="swarm-backup.tar.gz"',
      'cache-control': 'no-store',
    });
  });
  return app;
}
