/**
 * Filling an event rule's `enqueue` template: every string anywhere in it (also inside
 * arrays and objects) may hold `{path}` placeholders, replaced by the event's field at that
 * path (see event-fields.ts). A placeholder whose field is missing or empty makes the whole
 * template fail with the names of the missing paths, so the event is skipped with a reason
 * instead of producing a half-filled request.
 */
import { eventField } from './event-fields.js';
import type { EventLike } from './types.js';

const PLACEHOLDER = /\{([A-Za-z0-9_.-]+)\}/g;

export type Filled = { ok: true; value: unknown } | { ok: false; missing: string[] };

export function fillTemplate(template: unknown, event: EventLike): Filled {
  const missing = new Set<string>();
  const fill = (value: unknown): unknown => {
    if (typeof value === 'string') {
      return value.replace(PLACEHOLDER, (_whole, path: string) => {
        const field = eventField(event, path);
        if (field === undefined || field === '') {
          missing.add(path);
          return '';
        }
        return field;
      });
    }
    if (Array.isArray(value)) return value.map(fill);
    if (value !== null && typeof value === 'object') {
      return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, fill(item)]));
    }
    return value;
  };
  const value = fill(template);
  return missing.size > 0 ? { ok: false, missing: [...missing] } : { ok: true, value };
}
