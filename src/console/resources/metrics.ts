/** Metrics: update, list by event name (spec 4.5). */
import { once } from '../../util/once.js';
import type { RequestOptions } from '../call.js';
import type { PagePromise } from '../pagination.js';
import { path } from '../path.js';
import { envelope, type ListParams } from '../schemas/common.js';
import { type Metric, type MetricUpdate, metricSchema, metricUpdateSchema } from '../schemas/metrics.js';
import {
  callOrReject,
  listCall,
  pageSchema,
  pathParam,
  type ResourceContext,
  rejectedList,
  validate,
} from './shared.js';

const metricEnvelope = /* @__PURE__ */ once(() => envelope(metricSchema()));
const metricPage = /* @__PURE__ */ once(() => pageSchema(metricSchema()));

export function metricsResource(context: ResourceContext) {
  const { transport } = context;
  return {
    /**
     * Updates a metric (a POST that sets fields: retried like a PUT).
     *
     * @example
     * await client.metrics.update('checkout_rate::event_count', { isVerified: true, tags: ['core'] });
     */
    update(id: string, body: MetricUpdate, options?: RequestOptions): Promise<Metric> {
      return callOrReject(() => {
        const metricId = pathParam('metrics.update', 'id', id);
        const valid = validate('metrics.update', metricUpdateSchema(), body);
        return transport.data(
          {
            method: 'POST',
            path: path`/console/v1/metrics/${metricId}`,
            body: valid,
            retry: 'idempotent',
            mutation: true,
            schema: metricEnvelope(),
            data: true,
          },
          options,
        );
      });
    },

    /**
     * Lists the metrics that use an event.
     *
     * @example
     * const { data } = await client.metrics.listByEvent('purchase');
     */
    listByEvent(eventName: string, params?: ListParams, options?: RequestOptions): PagePromise<Metric> {
      let eventPath: string;
      try {
        eventPath = path`/console/v1/events/${pathParam('metrics.listByEvent', 'eventName', eventName)}/metrics`;
      } catch (error) {
        return rejectedList(context, error);
      }
      return listCall(context, 'metrics.listByEvent', eventPath, metricPage(), params, options);
    },
  };
}
