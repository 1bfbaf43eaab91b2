/** Release pipeline triggers (spec 2.10, 4.7). */
import * as z from 'zod/mini';

const str = z.optional(z.string());

export const TriggerActionSchema = z.lazy(() =>
  z.looseObject({
    timeMs: z.number(),
    phaseID: z.string(),
    actorName: str,
    actorID: str,
  }),
);

export const TriggerSchema = z.lazy(() =>
  z.looseObject({
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
    createdTime: z.optional(z.number()),
    currentPhaseEndTime: z.optional(z.number()),
    actions: z.optional(z.array(TriggerActionSchema)),
  }),
);
export type Trigger = z.infer<typeof TriggerSchema>;

export const ApprovePhaseSchema = z.lazy(() => z.strictObject({ phaseID: z.string().check(z.minLength(1)) }));
export type ApprovePhase = z.input<typeof ApprovePhaseSchema>;
