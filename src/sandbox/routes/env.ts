/** What every route gets: the Hono env (parsed body, caller) and the sandbox's state and clock. */
import type { SandboxState } from '../seed.js';

export type Actor = { actorName: string; actorID: string };

export type SandboxEnv = { Variables: { body: unknown; actor: Actor } };

/** What an approve of a review-required phase sent with the review header answers (SandboxOptions.reviews). */
export type ReviewMode = 'approve' | 'wait';

export type RouteDeps = { state: SandboxState; now: () => number; reviews: ReviewMode };
