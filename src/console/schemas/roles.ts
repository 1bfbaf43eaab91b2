/** Roles (spec 2.3, 4.1): the 29 permission keys; an update accepts only those, as booleans. */
import * as z from 'zod/mini';
import { once } from '../../util/once.js';

export const PERMISSION_KEYS = [
  'invitation_access',
  'create_configs',
  'edit_or_delete_configs',
  'launch_to_production',
  'launch_or_disable_configs',
  'start_experiments',
  'create_or_edit_templates',
  'create_or_edit_dashboards',
  'create_teams',
  'edit_dynamic_config_schemas',
  'create_release_pipelines',
  'approve_required_review_release_pipeline_phase',
  'self_approve_review',
  'approve_reviews',
  'bypass_reviews_for_overrides',
  'bypass_precommit_webhook',
  'metric_management',
  'event_dimensions_access',
  'verify_metrics',
  'use_metrics_explorer',
  'local_metrics',
  'manage_alerts',
  'integrations_edit_access',
  'source_connection_and_creation',
  'whn_connection',
  'data_warehouse_ingestion_and_exports_edit_access',
  'edit_and_tag_configs_with_core_tag',
  'reset_experiments',
  'manual_whn_reload',
] as const;
export type PermissionKey = (typeof PERMISSION_KEYS)[number];

/** Permissions in an update: any subset of the 29 keys, each a boolean; nothing else. */
export const permissionsUpdateSchema = /* @__PURE__ */ once(() =>
  z.strictObject(
    Object.fromEntries(PERMISSION_KEYS.map((key) => [key, z.optional(z.boolean())])) as Record<
      PermissionKey,
      z.ZodMiniOptional<z.ZodMiniBoolean>
    >,
  ),
);

export const roleUpdateSchema = /* @__PURE__ */ once(() =>
  z.strictObject({ permissions: permissionsUpdateSchema() }),
);
export type RoleUpdate = z.input<ReturnType<typeof roleUpdateSchema>>;

/** A role as returned: responses show 25 keys; whatever booleans come back are kept. */
export const roleSchema = /* @__PURE__ */ once(() =>
  z.looseObject({
    name: z.string(),
    permissions: z.nullish(z.record(z.string(), z.boolean())),
  }),
);
export type Role = z.infer<ReturnType<typeof roleSchema>>;
