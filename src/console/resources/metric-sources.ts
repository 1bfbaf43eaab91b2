/** Metric sources: list (spec 4.4). */
import type { RequestOptions } from '../http.js';
import type { PagePromise } from '../pagination.js';
import type { ListParams } from '../schemas/common.js';
import { type MetricSource, MetricSourceSchema } from '../schemas/metric-sources.js';
import { listCall, pageSchema, type ResourceContext } from './shared.js';

const MetricSourcePage = pageSchema(MetricSourceSchema);

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
        MetricSourcePage,
        params,
        options,
      );
    },
  };
}
