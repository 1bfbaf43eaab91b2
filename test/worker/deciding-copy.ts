/**
 * A copy of an asked request that decided before a person's answer was stored: the bench's policy
 * deployed anew approves schedules (a freeze starts at 10:30, so an Approve click after it is
 * denied), and the copy's hourly look is slow to go on (paused at its effect claim).
 */
import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import type { PolicyInput } from '../../src/policy/schema.js';
import type { StateTable } from '../../src/state/table.js';
import { type Bench, basePolicy } from './fixture.js';

/** The bench's policy, deployed anew: schedules are approved, and a freeze starts at 10:30. */
export function newPolicy(bench: Bench): PolicyInput {
  const policy = structuredClone(basePolicy(bench.slack.origin)) as PolicyInput & {
    approvals: { rules: Array<{ name: string; decision: string }>; freezes?: unknown };
  };
  const rule = policy.approvals.rules.find((r) => r.name === 'schedules ask a human');
  if (rule) rule.decision = 'approve';
  policy.approvals.freezes = [
    { name: 'incident', start: '2026-11-23T10:30:00Z', end: '2026-11-24T10:00:00Z' },
  ];
  return policy;
}

/** The bench's table, whose first write to an effect claim waits until `go` is called. */
export function pausedAtEffectClaim(bench: Bench) {
  const real = bench.table.client;
  let go: () => void = () => {};
  const resumed = new Promise<void>((resolve) => {
    go = resolve;
  });
  let reached: () => void = () => {};
  const paused = new Promise<void>((resolve) => {
    reached = resolve;
  });
  let waited = false;
  const client = {
    send: async (command: unknown) => {
      const item = command instanceof PutItemCommand ? command.input.Item : undefined;
      if (!waited && item?.pk?.S?.startsWith('effect#')) {
        waited = true;
        reached();
        await resumed;
      }
      return real.send(command as never);
    },
  } as unknown as StateTable['client'];
  return { table: { client, tableName: bench.table.tableName }, paused, go };
}

/** A copy of the asked request `id` (the schedule's, on `triggerId`), as its hourly look sends it. */
export const askedCopy = (id: string, triggerId: string) => ({
  triggerId,
  phaseId: 'ph_1',
  requestId: id,
  requestedBy: { source: 'schedule' as const, id: 'nightly' },
  requestedAt: '2026-11-23T10:00:00.000Z',
});
