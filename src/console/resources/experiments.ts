/** Experiments: create a qualifying event, disable groups (spec 4.4). */
import { once } from '../../util/once.js';
import type { RequestOptions } from '../call.js';
import { path } from '../path.js';
import { envelope } from '../schemas/common.js';
import {
  type DisableGroups,
  disableGroupsSchema,
  type Experiment,
  experimentSchema,
} from '../schemas/experiments.js';
import {
  type CreateQualifyingEvent,
  createQualifyingEventSchema,
  type QualifyingEvent,
  qualifyingEventSchema,
} from '../schemas/metric-sources.js';
import { callOrReject, pathParam, type ResourceContext, validate } from './shared.js';

const experimentEnvelope = /* @__PURE__ */ once(() => envelope(experimentSchema()));
const qualifyingEventEnvelope = /* @__PURE__ */ once(() => envelope(qualifyingEventSchema()));

export function experimentsResource({ transport }: ResourceContext) {
  return {
    /**
     * Creates a qualifying event (metric source). A creating POST: retried only on 429 and
     * on failures before the request left, so it is never created twice by a retry.
     *
     * @example
     * await client.experiments.createQualifyingEvent({
     *   name: 'purchases', sql: 'select * from purchases', timestampColumn: 'ts',
     *   idTypeMapping: [{ serviceUnitID: 'userID', column: 'user_id' }], dryRun: true,
     * });
     */
    createQualifyingEvent(body: CreateQualifyingEvent, options?: RequestOptions): Promise<QualifyingEvent> {
      return callOrReject(() => {
        const valid = validate('experiments.createQualifyingEvent', createQualifyingEventSchema(), body);
        return transport.data(
          {
            method: 'POST',
            path: '/console/v1/experiments/qualifying_events',
            body: valid,
            retry: 'create',
            mutation: true,
            schema: qualifyingEventEnvelope(),
            data: true,
          },
          options,
        );
      });
    },

    /**
     * Disables groups of an experiment. Setting state, so retried like a PUT.
     *
     * @example
     * const experiment = await client.experiments.disableGroups('exp_checkout', { group_names: ['test'] });
     */
    disableGroups(id: string, body: DisableGroups, options?: RequestOptions): Promise<Experiment> {
      return callOrReject(() => {
        const experimentId = pathParam('experiments.disableGroups', 'id', id);
        const valid = validate('experiments.disableGroups', disableGroupsSchema(), body);
        return transport.data(
          {
            method: 'POST',
            path: path`/console/v1/experiments/${experimentId}/disable_groups`,
            body: valid,
            retry: 'idempotent',
            mutation: true,
            schema: experimentEnvelope(),
            data: true,
          },
          options,
        );
      });
    },
  };
}
