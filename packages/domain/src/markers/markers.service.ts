import type { Db } from '@swarm/db';
import type { Clock } from '../clock.ts';

/**
 * Where a person stopped reading, kept for their apps (the client API's markers): one position
 * per timeline (`home`, `notifications`), the `api_id` of the last item read, a version that
 * counts the writes and the time of the last one. Apps on several devices share it.
 */

export const MARKER_TIMELINES = ['home', 'notifications'] as const;
export type MarkerTimeline = (typeof MARKER_TIMELINES)[number];

export interface Marker {
  timeline: MarkerTimeline;
  lastReadId: string;
  version: number;
  updatedAt: Date;
}

export interface MarkerService {
  /** The person's markers of `timelines` that exist. */
  get(userId: string, timelines: readonly MarkerTimeline[]): Promise<Marker[]>;
  /** Sets the given positions (each write bumps the version); answers the markers written. */
  set(userId: string, positions: Partial<Record<MarkerTimeline, string>>): Promise<Marker[]>;
}

const isTimeline = (value: string): value is MarkerTimeline =>
  (MARKER_TIMELINES as readonly string[]).includes(value);

export function createMarkerService(deps: { db: Db; clock: Clock }): MarkerService {
  const { prisma } = deps.db;
  const toMarker = (row: {
    timeline: string;
    lastReadId: string;
    version: number;
    updatedAt: Date;
  }): Marker[] =>
    isTimeline(row.timeline)
      ? [
          {
            timeline: row.timeline,
            lastReadId: row.lastReadId,
            version: row.version,
            updatedAt: row.updatedAt,
          },
        ]
      : [];
  return {
    async get(userId, timelines) {
      if (timelines.length === 0) return [];
      const rows = await prisma.readMarker.findMany({
        where: { userId, timeline: { in: [...timelines] } },
        orderBy: { timeline: 'asc' },
      });
      return rows.flatMap(toMarker);
    },

    async set(userId, positions) {
      const at = deps.clock.now();
      const written: Marker[] = [];
      for (const timeline of MARKER_TIMELINES) {
        const lastReadId = positions[timeline];
        if (lastReadId === undefined) continue;
        const row = await prisma.readMarker.upsert({
          where: { userId_timeline: { userId, timeline } },
          create: { userId, timeline, lastReadId, version: 1, updatedAt: at },
          update: { lastReadId, version: { increment: 1 }, updatedAt: at },
        });
        written.push(...toMarker(row));
      }
      return written;
    },
  };
}
