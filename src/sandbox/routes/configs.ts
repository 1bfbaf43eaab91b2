/**
 * Dynamic configs (spec 4.2): PUT /dynamic_configs/{id}/archive. Archiving sets `archived`
 * and `isEnabled: false`. Archiving an archived config answers 200 with the config unchanged
 * (idempotent, so a retried archive is harmless). A config whose release pipeline trigger is
 * still in progress needs `forceArchive: true` (400 otherwise).
 */
import type { Hono } from 'hono';
import { badRequest, notFound, ok, parseBody } from '../http.js';
import { ArchiveBody } from '../schemas.js';
import { IN_PROGRESS_STATUS } from '../seed.js';
import type { RouteDeps, SandboxEnv } from './env.js';

export function registerConfigs(app: Hono<SandboxEnv>, { state, now }: RouteDeps) {
  app.put('/dynamic_configs/:id/archive', (c) => {
    const id = c.req.param('id');
    const config = state.configs.get(id);
    if (!config) throw notFound(`Dynamic config ${id} not found.`);
    const body = parseBody(ArchiveBody, c.get('body'));
    if (config.archived) return ok(c, 'Dynamic config is already archived.', config);
    const blocking = [...state.triggers.values()].find(
      (t) => t.dynamicConfigID === id && t.status === IN_PROGRESS_STATUS,
    );
    if (blocking && !body.forceArchive) {
      throw badRequest(
        `Dynamic config ${id} is in an active release pipeline (trigger ${blocking.id}); set forceArchive to archive it anyway.`,
        [
          {
            property: 'forceArchive',
            errorMessage: 'must be true to archive a config in an active release pipeline',
          },
        ],
      );
    }
    const actor = c.get('actor');
    config.archived = true;
    config.isEnabled = false;
    config.archiveReason = body.archiveReason;
    config.archivedTime = now();
    config.lastModifiedTime = config.archivedTime;
    config.lastModifierID = actor.actorID;
    config.lastModifierName = actor.actorName;
    config.lastModifierEmail = '';
    config.version += 1;
    return ok(c, 'Dynamic config archived successfully.', config);
  });
}
