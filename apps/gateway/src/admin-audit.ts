import type { Context } from 'hono';
import type { AdminPrincipal, AuditEntry, NodeContext } from '@swarm/domain';

/**
 * The audit log's "who" for the admin API (docs/protocol.md "Admin API"): `token:<name>` for the
 * bearer token that passed `requireAdmin()` (`token:ADMIN_TOKEN` for the bootstrap one), and
 * `cli:<name>` when the `swarm` CLI sent it (`X-Swarm-Client: cli`). The header is the caller's
 * word, but only an admin can send it, and the token's name is kept either way.
 */
export const CLIENT_HEADER = 'x-swarm-client';

export function adminActor(c: Context): string {
  const principal = (c.var as Record<string, unknown>)['admin'] as AdminPrincipal | undefined;
  const name = principal?.name ?? 'unknown';
  return c.req.header(CLIENT_HEADER) === 'cli' ? `cli:${name}` : `token:${name}`;
}

/** Writes one audit entry for an admin API action (who: the token, see `adminActor`). */
export function auditAdmin(c: Context, entry: Omit<AuditEntry, 'actor'>): Promise<void> {
  const node: NodeContext = c.get('node');
  return node.moderation.audit.record({ actor: adminActor(c), ...entry });
}
