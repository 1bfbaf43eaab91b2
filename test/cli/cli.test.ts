import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliIo } from '../../src/cli/io.js';
import { runCli } from '../../src/cli/run.js';
import { type Emulators, startEmulators } from '../../src/local/emulators.js';

const REPO = resolve(import.meta.dirname, '../..');
const dir = mkdtempSync(join(tmpdir(), 'autopilot-cli-'));
const policy = JSON.parse(readFileSync(join(REPO, 'policy.json'), 'utf8'));

function io(env: Record<string, string | undefined> = {}, now = new Date('2026-11-23T10:00:00Z')) {
  const out: string[] = [];
  const err: string[] = [];
  const value: CliIo = {
    stdout: (t) => out.push(t),
    stderr: (t) => err.push(t),
    env: { AUTOPILOT_POLICY: join(REPO, 'policy.json'), ...env },
    cwd: dir,
    now: () => now,
  };
  return { io: value, out: () => out.join('\n'), err: () => err.join('\n') };
}

function file(name: string, value: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, typeof value === 'string' ? value : JSON.stringify(value));
  return path;
}

const ciRequest = {
  version: 1,
  action: 'approve_phase',
  triggerId: 'trg_1',
  phaseId: 'ph_1',
  requestedBy: { source: 'ci', id: 'github-actions/deploy.yml' },
  requestedAt: '2026-11-23T08:00:00Z',
};

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('autopilot (the binary)', () => {
  // Spawns are slow (tsx startup): two, for the wiring and the exit codes.
  it('prints help with exit 0 and rejects an unknown command with exit 2', () => {
    const help = spawnSync(process.execPath, [join(REPO, 'bin/autopilot.js'), '--help'], {
      encoding: 'utf8',
    });
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('policy check');
    const bad = spawnSync(process.execPath, [join(REPO, 'bin/autopilot.js'), 'frobnicate'], {
      encoding: 'utf8',
    });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('unknown command: frobnicate');
  });

  it('exits 1 with the zod path for an invalid policy', () => {
    const broken = structuredClone(policy);
    const windowed = broken.approvals.rules.findIndex((rule: { windows?: unknown }) => rule.windows);
    broken.approvals.rules[windowed].windows[0].start = '9am';
    const path = file('broken-policy.json', broken);
    const run = spawnSync(process.execPath, [join(REPO, 'bin/autopilot.js'), 'policy', 'check', path], {
      encoding: 'utf8',
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(`approvals.rules[${windowed}].windows[0].start`);
  });
});

describe('autopilot policy', () => {
  it('prints help with exit 0, and usage with exit 2 when no command is given', async () => {
    const help = io();
    expect(await runCli(['--help'], help.io)).toBe(0);
    expect(help.out()).toContain('policy check');
    const none = io();
    expect(await runCli([], none.io)).toBe(2);
    expect(none.err()).toContain('Usage');
  });

  it('summarises a valid policy', async () => {
    const t = io();
    expect(await runCli(['policy', 'check'], t.io)).toBe(0);
    expect(t.out()).toContain('is a valid policy');
    expect(t.out()).toContain('CI promotes any phase in office hours');
    expect(t.out()).toContain('year-end freeze');
  });

  it('reports a file that is not JSON with exit 1', async () => {
    const t = io();
    expect(await runCli(['policy', 'check', file('not-json.json', '{ nope')], t.io)).toBe(1);
    expect(t.err()).toContain('is not JSON');
  });

  it('explains an office-hours approval by the rule that decides it', async () => {
    const t = io();
    const code = await runCli(
      ['policy', 'explain', file('ci.json', ciRequest), '--at', '2026-11-23T10:00:00Z'],
      t.io,
    );
    expect(code).toBe(0);
    expect(t.out()).toMatch(/outcome\s+approve/);
    expect(t.out()).toMatch(/rule\s+CI promotes any phase in office hours/);
  });

  it('explains a deferral outside the windows, a freeze and a pause', async () => {
    const request = file('ci2.json', ciRequest);
    const sunday = io();
    await runCli(['policy', 'explain', request, '--at', '2026-11-22T10:00:00Z'], sunday.io);
    expect(sunday.out()).toMatch(/outcome\s+defer/);
    // Minutes are enough: the time a person types.
    const sundayInBerlin = io();
    expect(
      await runCli(['policy', 'explain', request, '--at', '2026-11-22T11:00+01:00'], sundayInBerlin.io),
    ).toBe(0);
    expect(sundayInBerlin.out()).toMatch(/outcome\s+defer/);
    const frozen = io();
    await runCli(['policy', 'explain', request, '--at', '2026-12-22T10:00:00Z', '--json'], frozen.io);
    expect(JSON.parse(frozen.out()).decision).toMatchObject({
      outcome: 'deny',
      rule: 'freeze:year-end freeze',
    });
    const paused = io();
    await runCli(['policy', 'explain', request, '--at', '2026-11-23T10:00:00Z', '--paused'], paused.io);
    expect(paused.out()).toMatch(/rule\s+pause/);
  });

  it('rejects an invalid request with its paths, and a bad --at with exit 2', async () => {
    const bad = io();
    const code = await runCli(
      ['policy', 'explain', file('bad.json', { ...ciRequest, phaseId: 'has space' })],
      bad.io,
    );
    expect(code).toBe(1);
    expect(bad.err()).toContain('phaseId');
    const at = io();
    expect(await runCli(['policy', 'explain', file('ok.json', ciRequest), '--at', 'tomorrow'], at.io)).toBe(
      2,
    );
    expect(at.err()).toContain('--at');
  });

  it('treats an unknown flag as a usage error', async () => {
    const t = io();
    expect(await runCli(['policy', 'check', '--frob'], t.io)).toBe(2);
    expect(t.err()).toContain("Unknown option '--frob'");
  });
});

describe('autopilot enqueue approve', () => {
  let emulators: Emulators;
  beforeAll(async () => {
    emulators = await startEmulators();
  });
  afterAll(async () => {
    await emulators?.stop();
  });

  it('sends a valid request from CI and prints the message id', async () => {
    const t = io({ ACTIONS_QUEUE_URL: emulators.queueUrl, AWS_ENDPOINT_URL_SQS: emulators.sqsEndpoint });
    const code = await runCli(
      [
        'enqueue',
        'approve',
        'trg_3',
        'ph_2',
        '--reason',
        'green',
        '--requested-by',
        'ci:deploy',
        '--request-id',
        'ci-42',
      ],
      t.io,
    );
    expect(code).toBe(0);
    const received = await emulators.sqs.send(
      new ReceiveMessageCommand({ QueueUrl: emulators.queueUrl, WaitTimeSeconds: 1 }),
    );
    const message = received.Messages?.[0];
    expect(t.out()).toBe(message?.MessageId);
    expect(JSON.parse(message?.Body ?? '{}')).toMatchObject({
      action: 'approve_phase',
      triggerId: 'trg_3',
      phaseId: 'ph_2',
      requestedBy: { source: 'ci', id: 'deploy' },
      requestId: 'ci-42',
      reason: 'green',
      requestedAt: '2026-11-23T10:00:00.000Z',
    });
  });

  it('refuses to speak for a person, a bad id, and a missing queue', async () => {
    const person = io({ ACTIONS_QUEUE_URL: emulators.queueUrl });
    expect(
      await runCli(['enqueue', 'approve', 'trg_1', 'ph_1', '--requested-by', 'slack:U0ADMIN'], person.io),
    ).toBe(2);
    const badId = io({ ACTIONS_QUEUE_URL: emulators.queueUrl });
    expect(await runCli(['enqueue', 'approve', 'trg 1', 'ph_1'], badId.io)).toBe(2);
    expect(badId.err()).toContain('triggerId');
    const noQueue = io();
    expect(await runCli(['enqueue', 'approve', 'trg_1', 'ph_1'], noQueue.io)).toBe(2);
    expect(noQueue.err()).toContain('ACTIONS_QUEUE_URL');
  });

  it('prints the request without sending it with --print', async () => {
    const t = io();
    expect(await runCli(['enqueue', 'approve', 'trg_1', 'ph_1', '--dry-run', '--print'], t.io)).toBe(0);
    expect(JSON.parse(t.out())).toMatchObject({ dryRun: true, requestedBy: { source: 'ci', id: 'cli' } });
  });
});

describe('autopilot slack curl', () => {
  it('prints a signed curl for the running local stack', async () => {
    const endpoints = file('endpoints.json', {
      webhookUrl: 'http://127.0.0.1:8787',
      slackReceiverUrl: 'http://127.0.0.1:9999',
    });
    const t = io({ AUTOPILOT_ENDPOINTS_FILE: endpoints });
    expect(await runCli(['slack', 'curl', 'approve', 'trg_1', 'ph_1'], t.io)).toBe(0);
    expect(t.out()).toContain("'http://127.0.0.1:8787/slack/commands'");
    expect(t.out()).toContain('text=approve+trg_1+ph_1');
    expect(t.out()).toContain(
      `x-slack-request-timestamp: ${Math.floor(Date.parse('2026-11-23T10:00:00Z') / 1000)}`,
    );
  });

  it('says the stack is not running when there is no endpoints file', async () => {
    const t = io({ AUTOPILOT_ENDPOINTS_FILE: join(dir, 'nope.json') });
    expect(await runCli(['slack', 'curl', 'status'], t.io)).toBe(1);
    expect(t.err()).toContain('npm start');
    // An answer for the operator, not a crash: no error class name before it.
    expect(t.err()).toMatch(/^autopilot: the local stack is not running/);
  });
});

describe('autopilot slack manifest', () => {
  it('prints the manifest for an https URL and refuses http', async () => {
    const t = io();
    expect(await runCli(['slack', 'manifest', '--url', 'https://abc.example.com/'], t.io)).toBe(0);
    expect(t.out()).toContain('https://abc.example.com/slack/commands');
    const bad = io();
    expect(await runCli(['slack', 'manifest', '--url', 'http://abc.example.com'], bad.io)).toBe(2);
  });
});
