/** Release pipeline triggers (spec 2.10, 4.7). */
import { z } from 'zod';

const str = z.string().optional();

export const TriggerActionSchema = z.looseObject({
  timeMs: z.number(),
  phaseID: z.string(),
  actorName: str,
  actorID: str,
});

export const TriggerSchema = z.looseObject({
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
  createdTime: z.number().optional(),
  currentPhaseEndTime: z.number().optional(),
  actions: z.array(TriggerActionSchema).optional(),
});
export type Trigger = z.infer<typeof TriggerSchema>;

export const ApprovePhaseSchema = z.strictObject({ phaseID: z.string().min(1) });
export type ApprovePhase = z.input<typeof ApprovePhaseSchema>;
