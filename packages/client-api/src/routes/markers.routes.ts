import { Hono } from 'hono';
import { MARKER_TIMELINES, type MarkerTimeline } from '@swarm/domain';
import { requireToken, type BearerEnv } from '../bearer.ts';
import { parseApiId } from '../ids.ts';
import { apiError } from '../errors.ts';
import { listParam } from '../list-paging.ts';
import { readParams } from '../params.ts';

/**
 * Markers (docs/clients.md "Markers"): where the person stopped reading their home timeline and
 * their notifications, shared by their apps. `GET ?timeline[]=home&timeline[]=notifications`
 * answers the markers that exist, keyed by timeline; `POST` with `home[last_read_id]` and/or
 * `notifications[last_read_id]` (form or JSON) sets them. An id must be one of ours in form (a
 * post's or notification's `api_id`); whether the item still exists is not checked.
 */
export function markerRoutes() {
  const app = new Hono<BearerEnv>();
  app.get('/api/v1/markers', requireToken(['read:statuses'], { user: true }), async (c) => {
    const read = await readParams(c.req.raw);
    if (!read.ok) return apiError(c, 400, read.reason);
    const asked = listParam(read.value, 'timeline') ?? [...MARKER_TIMELINES];
    const timelines = MARKER_TIMELINES.filter((t) => asked.includes(t));
    const markers = await c.var.deps.node.markers.get(c.var.grant.userId!, timelines);
    return c.json(Object.fromEntries(markers.map((m) => [m.timeline, markerEntity(m)])));
  });

  app.post('/api/v1/markers', requireToken(['write:statuses'], { user: true }), async (c) => {
    const read = await readParams(c.req.raw);
    if (!read.ok) return apiError(c, 400, read.reason);
    const positions: Partial<Record<MarkerTimeline, string>> = {};
    for (const timeline of MARKER_TIMELINES) {
      const nested = read.value[timeline];
      const value =
        nested && typeof nested === 'object' && !Array.isArray(nested)
          ? (nested as Record<string, unknown>).last_read_id
          : read.value[`${timeline}[last_read_id]`];
      if (value === undefined) continue;
      const text = typeof value === 'number' ? String(value) : value;
      const id = parseApiId(text);
      if (id === null) {
        return apiError(c, 422, `Validation failed: ${timeline}[last_read_id] is not an id`);
      }
      positions[timeline] = id.toString();
    }
    if (Object.keys(positions).length === 0) {
      return apiError(
        c,
        422,
        'Validation failed: give home[last_read_id] or notifications[last_read_id]',
      );
    }
    const markers = await c.var.deps.node.markers.set(c.var.grant.userId!, positions);
    return c.json(Object.fromEntries(markers.map((m) => [m.timeline, markerEntity(m)])));
  });
  return app;
}

function markerEntity(m: { lastReadId: string; version: number; updatedAt: Date }) {
  return { last_read_id: m.lastReadId, version: m.version, updated_at: m.updatedAt.toISOString() };
}
