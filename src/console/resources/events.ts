/** Logged events: list (spec 4.6). */
import type { RequestOptions } from '../http.js';
import type { PagePromise } from '../pagination.js';
import type { ListParams } from '../schemas/common.js';
import { type EventRecord, EventRecordSchema } from '../schemas/events.js';
import { listCall, pageSchema, type ResourceContext } from './shared.js';

const EventPage = pageSchema(EventRecordSchema);

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
      return listCall(context, 'events.list', '/console/v1/events', EventPage, params, options);
    },
  };
}
