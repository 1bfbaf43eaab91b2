/**
 * `policy test` and `policy explain` decide an `ask` as the deployed worker carries it out. The
 * worker asks in the notifications channel with the request in the Approve/Deny buttons; with no
 * channel set, or a request too large for the buttons' value, it denies instead
 * (src/worker/wait.ts, src/policy/ask-channel.ts). Both tools reported the policy's `ask` there:
 * a case passed with `ask` while production denied the request, and no case could say the
 * deployment had no channel. A case now states it (`deployment.channel`; default: set, as a
 * policy naming one always is), explain takes `--no-channel`, and both show the worker's outcome
 * with its reason.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { captureIo } from '../helpers/cli-io.js';

const REPO = resolve(import.meta.dirname, '../..');
const dir = mkdtempSync(join(tmpdir(), 'autopilot-policy-ask-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Identifiers at their 200-character bound, three bytes each in JSON: too large for the buttons. */
const WIDE = '€'.repeat(200);
const nightly = { action: 'approve_phase', target: 'trg_1/ph_2', requester: 'ci:nightly-build' };
const RULE = 'nightly promotions ask a human';

function file(name: string, value: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify(value));
  return path;
}

async function cli(...args: string[]) {
  const { io, out, err } = captureIo({ cwd: REPO });
  const code = await runCli(args, io);
  return { code, out: out(), err: err() };
}

const policyTest = (cases: unknown[], ...flags: string[]) =>
  cli(
    'policy',
    'test',
    'policy.json',
    file(`cases-${cases.length}-${Math.random()}.json`, { cases }),
    ...flags,
  );

describe('policy test: an ask as the worker carries it out', () => {
  it('decides a case stating no notifications channel as the worker does: denied, with its reason', async () => {
    const result = await policyTest([
      {
        name: 'nightly without a channel is denied',
        at: '2026-11-30T10:00',
        request: nightly,
        deployment: { channel: false },
        expect: { outcome: 'deny', rule: RULE, reason: 'no notifications channel' },
      },
    ]);
    expect(result.code, result.err).toBe(0);
    expect(result.out).toContain('deny (not asked: no channel)');
    expect(result.out).toMatch(/1 passed, 0 failed/);
  });

  it('fails a case that expects ask where the worker cannot ask, saying why', async () => {
    const result = await policyTest([
      {
        name: 'nightly without a channel asks',
        at: '2026-11-30T10:00',
        request: nightly,
        deployment: { channel: false },
        expect: { outcome: 'ask', rule: RULE },
      },
    ]);
    expect(result.code).toBe(1);
    expect(result.out).toContain('FAIL nightly without a channel asks: outcome deny');
    expect(result.out).toContain(
      'no notifications channel (slackWebhookUrl) is set to ask in, so it is denied',
    );
  });

  it('denies a request too large for the Slack buttons, as the worker does with a channel', async () => {
    const wide = {
      action: 'approve_phase',
      target: `${WIDE}/${WIDE}`,
      requester: `ci:nightly-${WIDE.slice(0, 150)}`,
    };
    const result = await policyTest([
      {
        name: 'a wide nightly request cannot be asked',
        at: '2026-11-30T10:00',
        request: wide,
        expect: { outcome: 'deny', rule: RULE, reason: 'too large to carry in Slack buttons' },
      },
    ]);
    expect(result.code, result.out).toBe(0);
    expect(result.out).toContain('deny (not asked: too large for the buttons)');
  });

  it('keeps a case that states nothing as with a channel: an ask is asked', async () => {
    const result = await policyTest(
      [
        {
          name: 'nightly asks',
          at: '2026-11-30T10:00',
          request: nightly,
          expect: { outcome: 'ask', rule: RULE },
        },
      ],
      '--json',
    );
    expect(result.code, result.out).toBe(0);
    expect(JSON.parse(result.out).results[0]).toMatchObject({ got: 'ask', channel: true });
  });

  it('gives the policy answer and why it was not asked in --json', async () => {
    const result = await policyTest(
      [
        {
          name: 'nightly without a channel',
          at: '2026-11-30T10:00',
          request: nightly,
          deployment: { channel: false },
          expect: { outcome: 'deny' },
        },
      ],
      '--json',
    );
    expect(JSON.parse(result.out).results[0]).toMatchObject({
      got: 'deny',
      channel: false,
      policyOutcome: 'ask',
      notAsked: 'no-channel',
      pass: true,
    });
  });

  it('fails a case saying no channel under a policy that names one: the worker always has it', async () => {
    const policy = JSON.parse(readFileSync(join(REPO, 'policy.json'), 'utf8'));
    policy.notifications = {
      ...policy.notifications,
      slackWebhookUrl: 'https://hooks.slack.com/services/T/B/x',
    };
    const cases = file('named-channel.json', {
      cases: [
        {
          name: 'no channel, says the case',
          at: '2026-11-30T10:00',
          request: nightly,
          deployment: { channel: false },
          expect: { outcome: 'deny' },
        },
      ],
    });
    const result = await cli('policy', 'test', file('policy-with-url.json', policy), cases);
    expect(result.code).toBe(1);
    expect(result.out).toContain('notifications.slackWebhookUrl');
  });
});

describe('policy explain: an ask as the worker carries it out', () => {
  const request = file('nightly.json', {
    version: 1,
    action: 'approve_phase',
    triggerId: 'trg_1',
    phaseId: 'ph_2',
    requestedBy: { source: 'ci', id: 'nightly-build' },
    requestedAt: '2026-11-30T09:00:00Z',
  });
  const explain = (...flags: string[]) =>
    cli('policy', 'explain', request, '--at', '2026-11-30T09:00:00Z', '--policy', 'policy.json', ...flags);

  it('denies with --no-channel, saying the policy asks and why it is not asked', async () => {
    const result = await explain('--no-channel');
    expect(result.code, result.err).toBe(0);
    expect(result.out.split('\n')).toContain('outcome   deny');
    expect(result.out).toContain('no notifications channel (slackWebhookUrl) is set to ask in');
    expect(result.out).toMatch(/channel {3}none \(--no-channel\)/);
    const json = JSON.parse((await explain('--no-channel', '--json')).out);
    expect(json).toMatchObject({
      channel: false,
      policyOutcome: 'ask',
      notAsked: 'no-channel',
      decision: { outcome: 'deny', rule: RULE },
    });
  });

  it('asks by default, saying the channel is taken as set', async () => {
    const result = await explain();
    expect(result.out.split('\n')).toContain('outcome   ask');
    expect(result.out).toMatch(/channel {3}assumed set/);
  });
});
