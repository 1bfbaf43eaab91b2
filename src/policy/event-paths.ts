/**
 * The event fields the policy may name (an event rule's `match` keys, `configIdFrom`): the
 * top-level ones and `metadata.<key>[.<key>…]`. One list for the schema that refuses a misspelt
 * path and for the sweeper that reads them (src/sweeper/event-fields.ts).
 */
export const EVENT_TOP_LEVEL_FIELDS: ReadonlySet<string> = new Set([
  'name',
  'source',
  'userID',
  'value',
  'timestamp',
]);

/** A path the sweeper can read. */
export const EVENT_PATH = new RegExp(`^(?:${[...EVENT_TOP_LEVEL_FIELDS].join('|')}|metadata(?:\\.[^.]+)+)$`);
