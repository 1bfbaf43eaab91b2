/** Logged events (spec 4.6): GET /events, newest-first or oldest-first (switchable at runtime). */
import type { Hono } from 'hono';
import { listPage } from '../http.js';
import type { RouteDeps, SandboxEnv } from './env.js';

export function registerEvents(app: Hono<SandboxEnv>, { state }: RouteDeps) {
  app.get('/events', (c) =>
    listPage(c, 'Event values listed successfully.', '/console/v1/events', state.events.total, (o, l) =>
      state.events.slice(o, l),
    ),
  );
}
