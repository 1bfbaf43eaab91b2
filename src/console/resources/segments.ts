/** Segments: get and list (spec 4.3). */
import { once } from '../../util/once.js';
import type { RequestOptions } from '../call.js';
import type { PagePromise } from '../pagination.js';
import { path } from '../path.js';
import { envelope, type ListParams } from '../schemas/common.js';
import { type Segment, segmentSchema } from '../schemas/segments.js';
import { callOrReject, listCall, pageSchema, pathParam, type ResourceContext } from './shared.js';

const segmentEnvelope = /* @__PURE__ */ once(() => envelope(segmentSchema()));
const segmentPage = /* @__PURE__ */ once(() => pageSchema(segmentSchema()));

export function segmentsResource(context: ResourceContext) {
  const { transport } = context;
  return {
    /**
     * Reads a segment (`id_list` or `rule_based`; narrow on `type`).
     *
     * @example
     * const segment = await client.segments.get('beta_users');
     * if (segment.type === 'rule_based') console.log(segment.rules.conditions);
     */
    get(id: string, options?: RequestOptions): Promise<Segment> {
      return callOrReject(() => {
        const segmentId = pathParam('segments.get', 'id', id);
        return transport.data(
          {
            method: 'GET',
            path: path`/console/v1/segments/${segmentId}`,
            retry: 'idempotent',
            mutation: false,
            schema: segmentEnvelope(),
            data: true,
          },
          options,
        );
      });
    },

    /**
     * Lists segments: await for one page, iterate for every segment.
     *
     * @example
     * const first = await client.segments.list({ limit: 50 });
     * for await (const segment of client.segments.list()) console.log(segment.id);
     */
    list(params?: ListParams, options?: RequestOptions): PagePromise<Segment> {
      return listCall(context, 'segments.list', '/console/v1/segments', segmentPage(), params, options);
    },
  };
}
