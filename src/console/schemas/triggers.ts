/** Release pipeline triggers (spec 2.10, 4.7). */
import * as z from 'zod/mini';
import { once } from '../../util/once.js';

/** An optional (or null) string, the type of most trigger fields: built once and shared by both schemas. */
const optionalString = /* @__PURE__ */ once(() => z.nullish(z.string()));

export const triggerActionSchema = /* @__PURE__ */ once(() => {
  const str = optionalString();
  return z.looseObject({
    timeMs: z.nullish(z.number()),
    phaseID: z.string(),
    actorName: str,
    actorID: str,
  });
});

export const triggerSchema = /* @__PURE__ */ once(() => {
  const str = optionalString();
  return z.looseObject({
    id: z.string(),
    releasePipelineID: str,
    creatorID: str,
    lastModifierID: str,
    lastModifierName: str,
    status: str,
    currentPhase: str,
    currentPhaseID: str,
    description: str,
    gateID: str,
    dynamicConfigID: str,
    configSnapshotID: str,
    createdTime: z.nullish(z.number()),
    currentPhaseEndTime: z.nullish(z.number()),
    actions: z.nullish(z.array(triggerActionSchema())),
  });
});
export type Trigger = z.infer<ReturnType<typeof triggerSchema>>;

export const approvePhaseSchema = /* @__PURE__ */ once(() =>
  z.strictObject({ phaseID: z.string().check(z.minLength(1)) }),
);
export type ApprovePhase = z.input<ReturnType<typeof approvePhaseSchema>>;
