/**
 * Release pipeline triggers (spec 4.7): approve the current phase. `phaseID` guards against
 * approving the wrong phase: only the trigger's `currentPhaseID` is accepted (else 400). An
 * approval appends an action and moves the trigger to its next phase, or to `completed`
 * (with empty current phase fields) after the last one. With `reviews: 'wait'`, an approve of a
 * phase that requires review sent with `x-respect-review-settings: true` answers 200 and changes
 * nothing: the phase stays current, waiting for a review nobody in the sandbox gives.
 */
import type { Hono } from 'hono';
import { badRequest, notFound, ok, parseBody } from '../http.js';
import { ApproveBody } from '../schemas.js';
import { COMPLETED_STATUS } from '../seed.js';
import type { TriggerState } from '../types.js';
import type { RouteDeps, SandboxEnv } from './env.js';

/** The trigger as the API shows it (the phase list is sandbox state, not a spec field). */
export function triggerView(t: TriggerState) {
  const { phases: _phases, ...view } = t;
  return view;
}

export function registerTriggers(app: Hono<SandboxEnv>, { state, now, reviews }: RouteDeps) {
  app.put('/release_pipeline_triggers/:id/approve', (c) => {
    const id = c.req.param('id');
    const trigger = state.triggers.get(id);
    if (!trigger) throw notFound(`Release pipeline trigger ${id} not found.`);
    const { phaseID } = parseBody(ApproveBody, c.get('body'));
    if (trigger.status === COMPLETED_STATUS || trigger.currentPhaseID === '') {
      throw badRequest(
        `Phase ${phaseID} is not the current phase of trigger ${id}: the trigger is completed.`,
        [{ property: 'phaseID', errorMessage: 'the trigger has no current phase (completed)' }],
      );
    }
    if (phaseID !== trigger.currentPhaseID) {
      throw badRequest(
        `Phase ${phaseID} is not the current phase of trigger ${id} (current phase: ${trigger.currentPhaseID}).`,
        [{ property: 'phaseID', errorMessage: `is not the current phase (${trigger.currentPhaseID})` }],
      );
    }
    const index = trigger.phases.findIndex((p) => p.id === phaseID);
    const respectsReview = c.req.header('x-respect-review-settings') === 'true';
    if (reviews === 'wait' && respectsReview && trigger.phases[index]?.requiresReview)
      return ok(c, `Phase ${phaseID} waits for its review.`, triggerView(trigger));
    const t = now();
    const actor = c.get('actor');
    trigger.actions.push({ timeMs: t, phaseID, actorName: actor.actorName, actorID: actor.actorID });
    const next = trigger.phases[index + 1];
    if (next) {
      trigger.currentPhase = next.name;
      trigger.currentPhaseID = next.id;
      trigger.currentPhaseEndTime = t + next.durationMs;
    } else {
      trigger.status = COMPLETED_STATUS;
      trigger.currentPhase = '';
      trigger.currentPhaseID = '';
      trigger.currentPhaseEndTime = t;
    }
    trigger.lastModifierID = actor.actorID;
    trigger.lastModifierName = actor.actorName;
    return ok(c, `Phase ${phaseID} approved.`, triggerView(trigger));
  });
}
