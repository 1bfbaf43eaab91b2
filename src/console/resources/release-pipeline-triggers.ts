/** Release pipeline triggers: approve a phase (spec 4.7). */
import { once } from '../../util/once.js';
import type { RequestOptions } from '../call.js';
import { path } from '../path.js';
import { envelope } from '../schemas/common.js';
import { type ApprovePhase, approvePhaseSchema, type Trigger, triggerSchema } from '../schemas/triggers.js';
import { callOrReject, pathParam, type ResourceContext, validate } from './shared.js';

const triggerEnvelope = /* @__PURE__ */ once(() => envelope(triggerSchema()));

export function releasePipelineTriggersResource({ transport }: ResourceContext) {
  return {
    /**
     * Approves the trigger's phase `phaseID` (the server refuses any phase but the current
     * one, so a retry after a lost response answers 400 rather than approving twice).
     *
     * @example
     * const trigger = await client.releasePipelineTriggers.approve('trg_1', { phaseID: 'ph_1' });
     */
    approve(id: string, body: ApprovePhase, options?: RequestOptions): Promise<Trigger> {
      return callOrReject(() => {
        const triggerId = pathParam('releasePipelineTriggers.approve', 'id', id);
        const valid = validate('releasePipelineTriggers.approve', approvePhaseSchema(), body);
        return transport.data(
          {
            method: 'PUT',
            path: path`/console/v1/release_pipeline_triggers/${triggerId}/approve`,
            body: valid,
            retry: 'idempotent',
            mutation: true,
            schema: triggerEnvelope(),
            data: true,
          },
          options,
        );
      });
    },
  };
}
