/** Logged events: list (spec 4.6). */
import { once } from '../../util/once.js';
import type { RequestOptions } from '../call.js';
import type { PagePromise } from '../pagination.js';
import type { ListParams } from '../schemas/common.js';
import { type EventRecord, eventRecordSchema } from '../schemas/events.js';
import { listCall, pageSchema, type ResourceContext } from './shared.js';

const eventPage = /* @__PURE__ */ once(() => pageSchema(eventRecordSchema()));

export function eventsResource(context: ResourceContext) {
  return {
    /**
     * Lists logged events (timestamps are strings of epoch ms; order is the server's).
     *
     * @example
     * for await (const event of client.events.list({ limit: 100 }, { deadline })) {
     *   if (event.name === 'config_exposure') seen.add(String(event.metadata?.config));
     * }
     */
    list(params?: ListParams, options?: RequestOptions): PagePromise<EventRecord> {
      return listCall(context, 'events.list', '/console/v1/events', eventPage(), params, options);
    },
  };
}
