/** Dynamic configs: archive (spec 4.2). */
import { once } from '../../util/once.js';
import type { RequestOptions } from '../call.js';
import { path } from '../path.js';
import { envelope } from '../schemas/common.js';
import {
  type ArchiveConfig,
  archiveConfigSchema,
  type DynamicConfig,
  dynamicConfigSchema,
} from '../schemas/dynamic-configs.js';
import { callOrReject, pathParam, type ResourceContext, validate } from './shared.js';

const configEnvelope = /* @__PURE__ */ once(() => envelope(dynamicConfigSchema()));

export function dynamicConfigsResource({ transport }: ResourceContext) {
  return {
    /**
     * Archives a dynamic config. PUT: safe to retry.
     *
     * @example
     * await client.dynamicConfigs.archive('new_checkout_copy', { forceArchive: false, archiveReason: 'stale 60 days' });
     */
    archive(id: string, body: ArchiveConfig, options?: RequestOptions): Promise<DynamicConfig> {
      return callOrReject(() => {
        const configId = pathParam('dynamicConfigs.archive', 'id', id);
        const valid = validate('dynamicConfigs.archive', archiveConfigSchema(), body);
        return transport.data(
          {
            method: 'PUT',
            path: path`/console/v1/dynamic_configs/${configId}/archive`,
            body: valid,
            retry: 'idempotent',
            mutation: true,
            schema: configEnvelope(),
            data: true,
          },
          options,
        );
      });
    },
  };
}
