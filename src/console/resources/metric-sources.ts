/** Metric sources: list (spec 4.4). */
import { once } from '../../util/once.js';
import type { RequestOptions } from '../call.js';
import type { PagePromise } from '../pagination.js';
import type { ListParams } from '../schemas/common.js';
import { type MetricSource, metricSourceSchema } from '../schemas/metric-sources.js';
import { listCall, pageSchema, type ResourceContext } from './shared.js';

const metricSourcePage = /* @__PURE__ */ once(() => pageSchema(metricSourceSchema()));

export function metricSourcesResource(context: ResourceContext) {
  return {
    /**
     * Lists metric sources.
     *
     * @example
     * for await (const source of client.metricSources.list({ limit: 100 })) console.log(source.name);
     */
    list(params?: ListParams, options?: RequestOptions): PagePromise<MetricSource> {
      return listCall(
        context,
        'metricSources.list',
        '/console/v1/metrics/metric_source/list',
        metricSourcePage(),
        params,
        options,
      );
    },
  };
}
