import type { Db, Prisma } from '@swarm/db';
import type { Clock } from '../clock.ts';

/**
 * The audit log (issue #15): every moderation and admin action, who, what, on what, when, why.
 * Append-only; written in the same transaction as the action when one is given.
 */
export interface AuditEntry {
  /** The admin's handle, or `cli`, `token:<name>`, `system`. */
  actor: string;
  action: string;
  target?: string;
  reason?: string;
  details?: Record<string, unknown>;
}

export interface AuditRow {
  id: string;
  actor: string;
  action: string;
  target: string;
  reason: string;
  details: unknown;
  createdAt: string;
}

export interface AuditSearch {
  /** Matched (case-insensitive) against actor, action, target and reason. */
  q?: string;
  action?: string;
  /** ISO timestamp: entries before it (paging). */
  before?: string;
  /** Default 50, at most 200. */
  limit?: number;
}

export interface AuditService {
  record(entry: AuditEntry, tx?: Prisma.TransactionClient): Promise<void>;
  search(query?: AuditSearch): Promise<{ entries: AuditRow[]; nextBefore: string | null }>;
}

export const AUDIT_TEXT_MAX = 1000;

export function createAuditService(deps: { db: Db; clock: Clock }): AuditService {
  const { prisma } = deps.db;
  return {
    async record(entry, tx) {
      await (tx ?? prisma).auditLog.create({
        data: {
          actor: entry.actor.slice(0, 200),
          action: entry.action.slice(0, 100),
          target: (entry.target ?? '').slice(0, AUDIT_TEXT_MAX),
          reason: (entry.reason ?? '').slice(0, AUDIT_TEXT_MAX),
          details: (entry.details ?? undefined) as Prisma.InputJsonValue | undefined,
          createdAt: deps.clock.now(),
        },
      });
    },

    async search(query = {}) {
      const limit = Math.min(Math.max(Math.trunc(query.limit ?? 50) || 50, 1), 200);
      const q = query.q?.trim().slice(0, 200);
      const before = query.before ? new Date(query.before) : null;
      const where: Prisma.AuditLogWhereInput = {
        ...(q
          ? {
              OR: (['actor', 'action', 'target', 'reason'] as const).map((field) => ({
                [field]: { contains: q, mode: 'insensitive' as const },
              })),
            }
          : {}),
        ...(query.action ? { action: query.action } : {}),
        ...(before && !Number.isNaN(before.getTime()) ? { createdAt: { lt: before } } : {}),
      };
      const rows = await prisma.auditLog.findMany({
        where,
        orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
        take: limit + 1,
      });
      const page = rows.slice(0, limit);
      return {
        entries: page.map((r) => ({
          id: r.id,
          actor: r.actor,
          action: r.action,
          target: r.target,
          reason: r.reason,
          details: r.details,
          createdAt: r.createdAt.toISOString(),
        })),
        nextBefore: rows.length > limit ? page[page.length - 1]!.createdAt.toISOString() : null,
      };
    },
  };
}
