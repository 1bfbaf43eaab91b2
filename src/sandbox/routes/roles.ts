/** Roles (spec 4.1): GET and PATCH /roles/{id}. Responses carry the 25 keys the spec shows. */
import type { Hono } from 'hono';
import { notFound, ok, parseBody } from '../http.js';
import { RoleUpdateBody } from '../schemas.js';
import { HIDDEN_PERMISSION_KEYS } from '../seed.js';
import type { Role } from '../types.js';
import type { RouteDeps, SandboxEnv } from './env.js';

export function roleView(role: Role) {
  const permissions = Object.fromEntries(
    Object.entries(role.permissions).filter(([key]) => !HIDDEN_PERMISSION_KEYS.has(key)),
  );
  return { name: role.name, permissions };
}

export function registerRoles(app: Hono<SandboxEnv>, { state }: RouteDeps) {
  const find = (id: string) => {
    const role = state.roles.get(id);
    if (!role) throw notFound(`Role ${id} not found.`);
    return role;
  };
  app.get('/roles/:id', (c) => ok(c, 'Role read successfully.', roleView(find(c.req.param('id')))));
  app.patch('/roles/:id', (c) => {
    const role = find(c.req.param('id'));
    const body = parseBody(RoleUpdateBody, c.get('body'));
    for (const [key, value] of Object.entries(body.permissions)) {
      if (typeof value === 'boolean') role.permissions[key] = value;
    }
    return ok(c, 'Role updated successfully.', roleView(role));
  });
}
