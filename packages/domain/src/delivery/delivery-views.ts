import { uuidSchema } from '@swarm/contract';
import type { Db, Prisma } from '@swarm/db';
import type { Clock } from '../clock.ts';
import type { DeliveryView } from '../views/index.ts';
import { toDeliveryView } from './delivery-policy.ts';

export interface DeliveryListQuery {
  status?: DeliveryView['status'];
  /** Default 50, at most 200. */
  limit?: number;
  createdById?: string;
}

export interface DeliveryCounts {
  pending: number;
  failed: number;
  delivered: number;
}

const LIST_DEFAULT = 50;
const LIST_MAX = 200;

const viewSelect = {
  id: true,
  kind: true,
  targetDomain: true,
  status: true,
  attempts: true,
  nextAttemptAt: true,
  lastError: true,
  lastStatus: true,
  interactionId: true,
  createdAt: true,
  deliveredAt: true,
} as const satisfies Prisma.OutboxDeliverySelect;

/** The outbox as its readers see it: views of rows, lists and counts. */
export interface DeliveryViews {
  loadView(id: string): Promise<DeliveryView | null>;
  list(query?: DeliveryListQuery): Promise<DeliveryView[]>;
  /** One delivery; with `createdById`, only when that user made it. */
  get(id: string, options?: { createdById?: string }): Promise<DeliveryView | null>;
  findByInteraction(interactionId: string): Promise<DeliveryView | null>;
  counts(): Promise<DeliveryCounts>;
}

export function createDeliveryViews(deps: { db: Db; clock: Clock }): DeliveryViews {
  const { clock } = deps;
  const prisma = deps.db.prisma;

  const view = (row: Prisma.OutboxDeliveryGetPayload<{ select: typeof viewSelect }>) =>
    toDeliveryView(row, clock.now());

  return {
    async loadView(id) {
      const row = await prisma.outboxDelivery.findUnique({ where: { id }, select: viewSelect });
      return row ? view(row) : null;
    },

    async list(query = {}) {
      const take = Math.min(Math.max(Math.trunc(query.limit ?? LIST_DEFAULT), 1), LIST_MAX);
      const rows = await prisma.outboxDelivery.findMany({
        where: {
          ...(query.status ? { status: query.status } : {}),
          ...(query.createdById ? { createdById: query.createdById } : {}),
        },
        orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
        take,
        select: viewSelect,
      });
      return rows.map(view);
    },

    async get(id, options = {}) {
      if (!uuidSchema.safeParse(id).success) return null;
      const row = await prisma.outboxDelivery.findFirst({
        where: { id, ...(options.createdById ? { createdById: options.createdById } : {}) },
        select: viewSelect,
      });
      return row ? view(row) : null;
    },

    async findByInteraction(interactionId) {
      const row = await prisma.outboxDelivery.findFirst({
        where: { interactionId },
        orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
        select: viewSelect,
      });
      return row ? view(row) : null;
    },

    async counts() {
      const groups = await prisma.outboxDelivery.groupBy({ by: ['status'], _count: true });
      const counts: DeliveryCounts = { pending: 0, failed: 0, delivered: 0 };
      for (const group of groups) {
        if (group.status in counts) counts[group.status as keyof DeliveryCounts] = group._count;
      }
      return counts;
    },
  };
}
