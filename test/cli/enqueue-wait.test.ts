/**
 * Issue 13 item 7: `enqueue … --wait` gates a deploy job on the outcome, against the local
 * stack's real worker: exit 0 approved, 3 denied, 4 still held at the timeout (an "ask" nobody
 * answers; the timeout passes on an injected clock, so the test never sleeps it out).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { captureIo } from '../helpers/cli-io.js';
import { bootTestStack, canaryTriggers, type TestStack } from '../helpers/local-stack.js';

let t: TestStack;
/** The trigger the first case approves; the second asks for the same change again. */
let approvedTrigger = '';

beforeAll(async () => {
  t = await bootTestStack('wait', (policy) => {
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
  });
});
afterAll(async () => {
  await t?.stop();
});

/**
 * `enqueue approve <trigger> <phase> --local --wait` as `requester`. Real short pauses let the
 * worker run; with `clock`, each pause also moves the CLI's clock by the whole poll interval.
 */
async function enqueueAndWait(
  trigger: string,
  phase: string,
  requester: string,
  requestId: string,
  options: { timeout?: string; clock?: { now: number } } = {},
) {
  const { clock } = options;
  const io = captureIo({
    env: t.cliEnv,
    cwd: t.dir,
    now: () => new Date(clock?.now ?? Date.now()),
    sleep: async (ms) => {
      if (clock) clock.now += ms;
      await new Promise((r) => setTimeout(r, 50));
    },
  });
  const args = [
    'enqueue',
    'approve',
    trigger,
    phase,
    '--local',
    '--wait',
    '--timeout',
    options.timeout ?? '60s',
  ];
  const code = await runCli([...args, '--requested-by', requester, '--request-id', requestId], io.io);
  return { code, err: io.err() };
}

describe('enqueue --wait', () => {
  it('exits 0 when the request is approved, printing the rule', async () => {
    approvedTrigger = canaryTriggers(t.stack)[0] as string;
    const { code, err } = await enqueueAndWait(approvedTrigger, 'ph_1', 'ci:release', 'wait-ok');
    expect(code, err).toBe(0);
    expect(err).toContain('approved (rule: release CI approves)');
  });

  it('exits 0 when the change was already made by an earlier request (never twice)', async () => {
    const { code, err } = await enqueueAndWait(approvedTrigger, 'ph_1', 'ci:release', 'wait-again');
    expect(code, err).toBe(0);
    // Its end is the change's outcome, naming the request that made it.
    expect(err).toContain('approved');
    expect(err).toContain('(request wait-ok, ');
  });

  it('exits 3 when the policy denies it, with the reason', async () => {
    const { code, err } = await enqueueAndWait('trg_2', 'ph_9', 'ci:blocked', 'wait-denied');
    expect(code, err).toBe(3);
    expect(err).toContain('denied (rule: blocked CI is denied)');
  });

  it('exits 4 when it is still held at the timeout, saying what it waits for', async () => {
    const [, trigger] = canaryTriggers(t.stack);
    const clock = { now: Date.now() };
    const { code, err } = await enqueueAndWait(trigger as string, 'ph_1', 'ci:nightly', 'wait-held', {
      timeout: '90s',
      clock,
    });
    expect(code, err).toBe(4);
    expect(err).toMatch(/still held at the timeout: asked|still queued at the timeout/);
  });

  it('refuses --wait without a table to read, before sending anything', async () => {
    const io = captureIo();
    const args = ['enqueue', 'approve', 'trg_1', 'ph_1', '--queue-url', 'http://127.0.0.1:9/q', '--wait'];
    expect(await runCli(args, io.io)).toBe(2);
    expect(io.err()).toContain('give --table NAME, set STATE_TABLE_NAME, or use --local');
  });
});
