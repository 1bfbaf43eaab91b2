/** `autopilot policy replay` run in process over a test's state table, at a fixed clock; its output text. */
import { expect } from 'vitest';
import type { CliIo } from '../../src/cli/io.js';
import { policyReplayCommand } from '../../src/cli/policy-replay.js';
import type { StateTable } from '../../src/state/table.js';

export async function runReplay(
  table: StateTable,
  policy: unknown,
  options: { json: boolean },
): Promise<string> {
  const out: string[] = [];
  const io: CliIo = {
    stdout: (t) => out.push(t),
    stderr: () => {},
    env: {},
    cwd: '/',
    now: () => new Date('2026-11-30T00:00:00Z'),
  };
  const args = ['--policy', 'new.json', ...(options.json ? ['--json'] : [])];
  const code = await policyReplayCommand(args, io, { read: () => JSON.stringify(policy), table });
  expect(code).toBe(0);
  return out.join('\n');
}
