/**
 * Issue 13 item 7: `enqueue … --wait` gates a deploy job on the outcome, against the local
 * stack's real worker: exit 0 approved, 3 denied, 4 still held at the timeout (an "ask" nobody
 * answers; the timeout passes on an injected clock, so the test never sleeps it out).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliIo } from '../../src/cli/io.js';
import { runCli } from '../../src/cli/run.js';
import { bootLocalStack, type LocalStack } from '../../src/local/stack.js';

const dir = mkdtempSync(join(tmpdir(), 'autopilot-wait-'));
let stack: LocalStack;
/** The trigger the first case approves; the second asks for the same change again. */
let approvedTrigger = '';

beforeAll(async () => {
  const policy = JSON.parse(readFileSync(resolve(import.meta.dirname, '../../policy.json'), 'utf8'));
  policy.approvals.freezes = [];
  policy.approvals.rules = [
    { name: 'blocked CI is denied', when: { requesters: ['ci:blocked'] }, decision: 'deny' },
    { name: 'nightly asks a human', when: { requesters: ['ci:nightly'] }, decision: 'ask' },
    {
      name: 'release CI approves',
      when: { requesters: ['ci:release'] },
      decision: 'approve',
      maxPerHour: 30,
    },
  ];
  const policyPath = join(dir, 'policy.json');
  writeFileSync(policyPath, JSON.stringify(policy));
  stack = await bootLocalStack({
    port: 0,
    stateDir: join(dir, 'state'),
    policyPath,
    writeEndpointsFile: true,
    sweepIntervalSeconds: false,
    worker: { waitTimeSeconds: 1 },
    env: { LOG_LEVEL: 'error' },
    receiver: { print: false },
  });
});
afterAll(async () => {
  await stack?.stop();
  rmSync(dir, { recursive: true, force: true });
});

function io(clock?: { now: number }) {
  const out: string[] = [];
  const err: string[] = [];
  const value: CliIo = {
    stdout: (t) => out.push(t),
    stderr: (t) => err.push(t),
    env: { AUTOPILOT_ENDPOINTS_FILE: join(dir, 'state', 'endpoints.json') },
    cwd: dir,
    now: () => new Date(clock?.now ?? Date.now()),
    // Real short pauses let the worker run; an injected clock jumps by the whole poll interval.
    sleep: async (ms) => {
      if (clock) clock.now += ms;
      await new Promise((r) => setTimeout(r, 50));
    },
  };
  return { io: value, err: () => err.join('\n'), out: () => out.join('\n') };
}

const canary = () =>
  [...(stack.sandbox?.state.triggers.values() ?? [])]
    .filter((t) => t.currentPhaseID === 'ph_1')
    .map((t) => t.id);

describe('enqueue --wait', () => {
  it('exits 0 when the request is approved, printing the rule', async () => {
    const t = io();
    approvedTrigger = canary()[0] as string;
    const trigger = approvedTrigger;
    const code = await runCli(
      [
        'enqueue',
        'approve',
        trigger as string,
        'ph_1',
        '--local',
        '--wait',
        '--timeout',
        '60s',
        '--requested-by',
        'ci:release',
        '--request-id',
        'wait-ok',
      ],
      t.io,
    );
    expect(code, t.err()).toBe(0);
    expect(t.err()).toContain('approved (rule: release CI approves)');
  });

  it('exits 0 when the change was already made by an earlier request (never twice)', async () => {
    const t = io();
    const code = await runCli(
      [
        'enqueue',
        'approve',
        approvedTrigger,
        'ph_1',
        '--local',
        '--wait',
        '--timeout',
        '60s',
        '--requested-by',
        'ci:release',
        '--request-id',
        'wait-again',
      ],
      t.io,
    );
    expect(code, t.err()).toBe(0);
    expect(t.err()).toContain('replayed');
    expect(t.err()).toContain('request wait-ok');
  });

  it('exits 3 when the policy denies it, with the reason', async () => {
    const t = io();
    const code = await runCli(
      [
        'enqueue',
        'approve',
        'trg_2',
        'ph_9',
        '--local',
        '--wait',
        '--timeout',
        '60s',
        '--requested-by',
        'ci:blocked',
        '--request-id',
        'wait-denied',
      ],
      t.io,
    );
    expect(code, t.err()).toBe(3);
    expect(t.err()).toContain('denied (rule: blocked CI is denied)');
  });

  it('exits 4 when it is still held at the timeout, saying what it waits for', async () => {
    const clock = { now: Date.now() };
    const t = io(clock);
    const [, trigger] = canary();
    const code = await runCli(
      [
        'enqueue',
        'approve',
        trigger as string,
        'ph_1',
        '--local',
        '--wait',
        '--timeout',
        '90s',
        '--requested-by',
        'ci:nightly',
        '--request-id',
        'wait-held',
      ],
      t.io,
    );
    expect(code, t.err()).toBe(4);
    expect(t.err()).toMatch(/still held at the timeout: (asked|queued)/);
  });

  it('refuses --wait without a table to read, before sending anything', async () => {
    const t = io();
    const code = await runCli(
      ['enqueue', 'approve', 'trg_1', 'ph_1', '--queue-url', 'http://127.0.0.1:9/q', '--wait'],
      {
        ...t.io,
        env: {},
      },
    );
    expect(code).toBe(2);
    expect(t.err()).toContain('give --table NAME, set STATE_TABLE_NAME, or use --local');
  });
});
