/** Roles: get and update (spec 4.1). */
import { once } from '../../util/once.js';
import type { RequestOptions } from '../call.js';
import { path } from '../path.js';
import { envelope } from '../schemas/common.js';
import { type Role, type RoleUpdate, roleSchema, roleUpdateSchema } from '../schemas/roles.js';
import { callOrReject, pathParam, type ResourceContext, validate } from './shared.js';

const roleEnvelope = /* @__PURE__ */ once(() => envelope(roleSchema()));

export function rolesResource({ transport }: ResourceContext) {
  return {
    /**
     * Reads a role.
     *
     * @example
     * const role = await client.roles.get('role_admin');
     * if (role.permissions.launch_to_production) ...
     */
    get(id: string, options?: RequestOptions): Promise<Role> {
      return callOrReject(() => {
        const roleId = pathParam('roles.get', 'id', id);
        return transport.data(
          {
            method: 'GET',
            path: path`/console/v1/roles/${roleId}`,
            retry: 'idempotent',
            mutation: false,
            schema: roleEnvelope(),
            data: true,
          },
          options,
        );
      });
    },

    /**
     * Updates a role's permissions: only the 29 known keys, each a boolean (anything else is
     * refused before sending).
     *
     * @example
     * await client.roles.update('role_release', { permissions: { launch_to_production: false } });
     */
    update(id: string, body: RoleUpdate, options?: RequestOptions): Promise<Role> {
      return callOrReject(() => {
        const roleId = pathParam('roles.update', 'id', id);
        const valid = validate('roles.update', roleUpdateSchema(), body);
        return transport.data(
          {
            method: 'PATCH',
            path: path`/console/v1/roles/${roleId}`,
            body: valid,
            retry: 'idempotent',
            mutation: true,
            schema: roleEnvelope(),
            data: true,
          },
          options,
        );
      });
    },
  };
}
