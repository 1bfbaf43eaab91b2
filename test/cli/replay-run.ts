/** `autopilot policy replay` run in process over a test's state table, at a fixed clock; its output text. */
import { expect } from 'vitest';
import type { CliIo } from '../../src/cli/io.js';
import { policyReplayCommand } from '../../src/cli/policy-replay.js';
import type { PolicyInput } from '../../src/policy/schema.js';
import type { StateTable } from '../../src/state/table.js';

export async function runReplay(
  table: StateTable,
  policy: unknown,
  /** `now`: the CLI's clock, the replay's end (a fixed Monday a week after the bench's records by default). */
  options: { json: boolean; now?: string },
): Promise<string> {
  const out: string[] = [];
  const io: CliIo = {
    stdout: (t) => out.push(t),
    stderr: () => {},
    env: {},
    cwd: '/',
    now: () => new Date(options.now ?? '2026-11-30T00:00:00Z'),
  };
  const args = ['--policy', 'new.json', ...(options.json ? ['--json'] : [])];
  const code = await policyReplayCommand(args, io, { read: () => JSON.stringify(policy), table });
  expect(code).toBe(0);
  return out.join('\n');
}

/** `autopilot policy replay --json` of `policy` over `table`: its report. */
// biome-ignore lint/suspicious/noExplicitAny: the report is JSON the tests read by hand
export async function replayReport(table: StateTable, policy: unknown): Promise<any> {
  return JSON.parse(await runReplay(table, policy, { json: true }));
}

/** A copy of `policy` whose rule 'CI in office hours' asks a human at all hours (no windows). */
export function ciAsksAlways(policy: PolicyInput): PolicyInput {
  const copy = structuredClone(policy) as PolicyInput & {
    approvals: {
      rules: Array<{ name: string; decision: string; windows?: unknown; outsideWindows?: unknown }>;
    };
  };
  const ci = copy.approvals.rules.find((r) => r.name === 'CI in office hours');
  if (ci) {
    ci.decision = 'ask';
    delete ci.windows;
    delete ci.outsideWindows;
  }
  return copy;
}
