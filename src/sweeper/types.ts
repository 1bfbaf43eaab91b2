/**
 * What the sweeper needs from its surroundings, as structural types: the one Console API
 * call it makes (`client.events.list`), the event record it reads and the steps a run goes
 * through (observable and interruptible by tests through `hooks.onStep`).
 */

/** A logged event (spec 2.12); unknown fields are kept but not used. */
export interface EventLike {
  timestamp: string;
  name: string;
  source?: string | undefined;
  value?: string | undefined;
  userID?: string | undefined;
  metadata?: Record<string, unknown> | undefined;
}

/** The part of a list response the poller uses. `itemsPerPage` is the page size the API applied. */
export interface EventsPage {
  data: EventLike[];
  pagination: { itemsPerPage: number; pageNumber: number; totalItems: number };
}

/** `client.events` of the Console API client (or anything shaped like it). */
export interface EventsSource {
  list(
    params: { page: number; limit: number },
    options?: { deadline?: number; signal?: AbortSignal },
  ): PromiseLike<EventsPage>;
}

export type { EventOrder } from '../state/sweep-cursor.js';

/**
 * The durable steps of a run, in the order they happen. A flush of the poller goes
 * enqueue → notify → notify-marks → last-seen → watch → cursor; the stale sweep goes
 * stale-enqueue → stale-marks; then the summary.
 */
export const SWEEPER_STEPS = [
  'page',
  'enqueue',
  'notify',
  'notify-marks',
  'last-seen',
  'watch',
  'cursor',
  'stale-enqueue',
  'stale-marks',
  'summary',
] as const;
export type SweeperStep = (typeof SWEEPER_STEPS)[number];

export interface SweeperHooks {
  /** Called after each step completes; a throw here models a crash right after that step. */
  onStep?(step: SweeperStep, detail: Record<string, unknown>): void | Promise<void>;
}
