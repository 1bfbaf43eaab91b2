/**
 * What the chaos run counts as effects: each successful mutation call in the sandbox's request
 * log, by the effect key of the request that would make it, so duplicates, effects without a
 * done outcome and done outcomes without an effect are found by the keys the worker claims.
 */
import { effectKey, parseActionRequest } from '../actions/request.js';
import type { LoggedRequest, Sandbox } from '../sandbox/index.js';
import type { FinalOutcome } from '../state/audit.js';
import { doneMayHaveBeenEarlier } from '../worker/execute.js';
import { saysMayHaveReached } from '../worker/replies.js';

/**
 * The effect key of a logged mutation, or undefined: `effectKey` itself, of the target the call
 * names, so the run counts effects by the very keys the worker claims (never a copy of the form).
 */
function loggedEffectKey(entry: LoggedRequest): string | undefined {
  const body = (entry.body ?? {}) as { phaseID?: string; group_names?: string[] };
  const id = (pattern: RegExp) => {
    const m = pattern.exec(entry.path);
    return m ? decodeURIComponent(m[1] as string) : undefined;
  };
  const triggerId = id(/\/release_pipeline_triggers\/([^/]+)\/approve$/);
  if (triggerId !== undefined)
    return effectKey({ action: 'approve_phase', triggerId, phaseId: String(body.phaseID) });
  const experimentId = id(/\/experiments\/([^/]+)\/disable_groups$/);
  if (experimentId !== undefined)
    return effectKey({ action: 'disable_groups', experimentId, groupNames: body.group_names ?? [] });
  const configId = id(/\/dynamic_configs\/([^/]+)\/archive$/);
  if (configId !== undefined) return effectKey({ action: 'archive_config', configId });
  return undefined;
}

/** Successful mutation calls per effect key, from the sandbox's request log and its state. */
export function effectsAt(sandbox: Sandbox) {
  const calls = new Map<string, number>();
  const faultsInjected: Record<string, number> = {};
  let mutationCalls = 0;
  for (const entry of sandbox.requests) {
    if (entry.fault) faultsInjected[entry.fault] = (faultsInjected[entry.fault] ?? 0) + 1;
    if (entry.method === 'GET') continue;
    mutationCalls += 1;
    const key = loggedEffectKey(entry);
    // A fault answers before the handler runs: only a clean 2xx is an effect.
    if (!key || entry.fault || entry.status < 200 || entry.status >= 300) continue;
    calls.set(key, (calls.get(key) ?? 0) + 1);
  }
  // The sandbox's state agrees: a trigger's action log holds each approved phase once.
  for (const trigger of sandbox.state.triggers.values()) {
    const perPhase = new Map<string, number>();
    for (const action of trigger.actions)
      perPhase.set(action.phaseID, (perPhase.get(action.phaseID) ?? 0) + 1);
    for (const [phase, n] of perPhase) {
      const key = effectKey({ action: 'approve_phase', triggerId: trigger.id, phaseId: phase });
      if (n > 1 && (calls.get(key) ?? 0) < n) calls.set(key, n);
    }
  }
  return { calls, faultsInjected, mutationCalls };
}

/** The results of a final that tell the change as made. */
const CHANGE_MADE: ReadonlySet<string> = new Set(['approved', 'groups-disabled', 'archived']);

/**
 * Whether a final tells its change as made without a doubt: a done result with no "may have been
 * done" qualifier (the stored flag, or the words of an unanswered earlier attempt). Those told
 * with one are left out: what they assert is hedged, and the other checks own them.
 */
export function saysFlatlyDone(final: FinalOutcome): boolean {
  return (
    CHANGE_MADE.has(final.result) &&
    final.mayHaveBeenDone !== true &&
    !doneMayHaveBeenEarlier(final.reason) &&
    !saysMayHaveReached(final.reason)
  );
}

/**
 * The requests whose final says flatly done while the sandbox applied no change under their effect
 * key (`applied`: `effectsAt(...).calls`, from its own request log, never from our state table): a
 * "done" told for a call the platform never carried out (a 2xx that was no answer of its, say).
 * The key is the one the request's own message asks for, so a replay of another request's change
 * ("already done by …") is owned by that change.
 */
export function doneWithoutEffect(
  messages: ReadonlyArray<{ requestId?: string; body: string }>,
  finals: ReadonlyMap<string, FinalOutcome>,
  applied: ReadonlyMap<string, number>,
): string[] {
  const missing = new Set<string>();
  for (const m of messages) {
    const final = m.requestId ? finals.get(m.requestId) : undefined;
    if (!m.requestId || !final || !saysFlatlyDone(final)) continue;
    const parsed = parseActionRequest(m.body);
    if (parsed.ok && (applied.get(effectKey(parsed.request)) ?? 0) === 0) missing.add(m.requestId);
  }
  return [...missing];
}
