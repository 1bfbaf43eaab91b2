/** Segments (spec 4.3): GET /segments/{id} and the paged GET /segments. */
import type { Hono } from 'hono';
import { listPage, notFound, ok } from '../http.js';
import type { RouteDeps, SandboxEnv } from './env.js';

export function registerSegments(app: Hono<SandboxEnv>, { state }: RouteDeps) {
  app.get('/segments', (c) => {
    const all = [...state.segments.values()];
    return listPage(c, 'Segments listed successfully.', '/console/v1/segments', all.length, (o, l) =>
      all.slice(o, o + l),
    );
  });
  app.get('/segments/:id', (c) => {
    const id = c.req.param('id');
    const segment = state.segments.get(id);
    if (!segment) throw notFound(`Segment ${id} not found.`);
    return ok(c, 'Segment read successfully.', segment);
  });
}
