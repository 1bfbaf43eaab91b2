/**
 * Metrics (spec 4.5): update a metric (POST /metrics/{id}; `dryRun` answers the result
 * without keeping it) and list the metrics that use an event (GET /events/{name}/metrics).
 * A renamed metric keeps its id.
 */
import type { Hono } from 'hono';
import { listPage, notFound, ok, parseBody } from '../http.js';
import { MetricUpdateBody } from '../schemas.js';
import type { Metric } from '../types.js';
import type { RouteDeps, SandboxEnv } from './env.js';

export function registerMetrics(app: Hono<SandboxEnv>, { state }: RouteDeps) {
  app.post('/metrics/:id', (c) => {
    const id = c.req.param('id');
    const metric = state.metrics.get(id);
    if (!metric) throw notFound(`Metric ${id} not found.`);
    const body = parseBody(MetricUpdateBody, c.get('body'));
    const next: Metric = structuredClone(metric);
    const { dryRun, owner, warehouseNative, ...rest } = body;
    for (const [key, value] of Object.entries(rest)) {
      if (value !== undefined) (next as Record<string, unknown>)[key] = value;
    }
    if (owner)
      next.owner = { ownerID: owner.ownerID, ownerEmail: owner.email, ownerType: 'USER', name: owner.email };
    if (warehouseNative) next.warehouseNative = { ...(next.warehouseNative ?? {}), ...warehouseNative };
    if (!dryRun) state.metrics.set(id, next);
    return ok(c, 'Metric updated successfully.', next);
  });

  app.get('/events/:eventName/metrics', (c) => {
    const eventName = c.req.param('eventName');
    const matching = [...state.metrics.values()].filter((m) => m.lineage.events.includes(eventName));
    const basePath = `/console/v1/events/${encodeURIComponent(eventName)}/metrics`;
    return listPage(c, 'Metrics listed successfully.', basePath, matching.length, (o, l) =>
      matching.slice(o, o + l),
    );
  });
}
