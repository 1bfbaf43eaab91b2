import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createConsoleClient } from '../../src/console/index.js';
import { type Emulators, startEmulators } from '../../src/local/emulators.js';
import { NO_FAULTS, type RunningSandbox, startSandbox } from '../../src/sandbox/index.js';
import { writePause } from '../../src/state/pause.js';
import type { StateTable } from '../../src/state/table.js';
import type { SlackBlock } from '../../src/webhook/blocks.js';
import { sqsQueueDepth } from '../../src/wiring/aws-clients.js';
import { commandBody, signedRequest } from '../helpers/slack-requests.js';
import { buildApp } from './harness.js';

let sandbox: RunningSandbox;
let emu: Emulators;
let table: StateTable;

beforeAll(async () => {
  [sandbox, emu] = await Promise.all([startSandbox({ seed: 42 }), startEmulators()]);
  table = { client: emu.dynamo, tableName: emu.tableName };
});
afterAll(async () => {
  await Promise.all([sandbox?.close(), emu?.stop()]);
});
beforeEach(() => {
  sandbox.sandbox.setFaults(NO_FAULTS);
});

function harness(deadlineMs?: number) {
  const console = createConsoleClient({
    baseUrl: sandbox.url,
    apiKey: 'sandbox-key',
    timeoutMs: 2_000,
    maxRetries: 1,
    mutationBudget: false,
  });
  return buildApp({
    console,
    table,
    sqs: emu.sqs,
    queueUrl: emu.queueUrl,
    queueDepth: sqsQueueDepth(emu.sqs, emu.queueUrl),
    ...(deadlineMs !== undefined ? { deadlineMs } : {}),
  });
}

interface Reply {
  response_type: string;
  text: string;
  blocks: SlackBlock[];
}

async function read(text: string, options: { userId?: string; deadlineMs?: number } = {}) {
  const { app, requestLines } = harness(options.deadlineMs);
  const res = await app.request(
    signedRequest('/slack/commands', commandBody({ text, userId: options.userId ?? 'U0READER' })),
  );
  expect(res.status).toBe(200);
  const reply = (await res.json()) as Reply;
  return { reply, all: JSON.stringify(reply.blocks), log: requestLines().at(-1)! };
}

describe('read commands against the sandbox', () => {
  it('shows a role with granted and missing permissions', async () => {
    const { reply, all, log } = await read('role member');
    expect(reply.response_type).toBe('ephemeral');
    expect(reply.text).toMatch(/^Role Member: \d+ of \d+ permissions$/);
    expect(all).toContain('Granted');
    expect(all).toContain('`create_configs`');
    expect(all).toContain('Not granted');
    expect(all).toContain('`approve_reviews`');
    expect(log).toMatchObject({ command: 'role', outcome: 'ok', userId: 'U0READER' });
  });

  it('says so when a role does not exist', async () => {
    const { reply, log } = await read('role no_such_role');
    expect(reply.text).toBe('There is no role `no_such_role`.');
    expect(log.outcome).toBe('not_found');
  });

  it('shows one segment with its fields', async () => {
    const { reply, all } = await read('segment beta_testers');
    expect(reply.text).toBe('Segment beta_testers');
    expect(all).toContain('*Type*');
    expect(all).toContain('*Count*');
  });

  it('lists segments as a table with a paging hint', async () => {
    const { reply, all } = await read('segments');
    expect(reply.text).toBe('Segments, page 1');
    expect(all).toContain('```');
    expect(all).toContain('beta_testers');
    expect(all).toContain('Page 1 of');
    expect(all).toContain('`/autopilot segments 2` for more');
    const second = await read('segments 2');
    expect(second.all).toContain('Page 2 of');
    expect(second.all).not.toContain('beta_testers');
  });

  it('says a page past the end does not exist', async () => {
    const { reply } = await read('segments 999');
    expect(reply.text).toMatch(/^There is no page 999 of segments; the last is page \d+\.$/);
  });

  it('lists the metrics built on an event', async () => {
    const { reply, all } = await read('metrics purchase');
    expect(reply.text).toBe('Metrics on purchase');
    expect(all).toContain('purchase');
    expect(all).toMatch(/::(sum|event_count|event_dau|event_user)/);
  });

  it('lists the latest events with times, names and a paging hint', async () => {
    const { reply, all } = await read('events');
    expect(reply.text).toBe('Events, page 1');
    expect(all).toContain('time (UTC)');
    expect(all).toMatch(/\d{4}-\d\d-\d\d \d\d:\d\d:\d\d/);
    expect(all).toContain('`/autopilot events 2` for more');
  });

  it('shows status: pause state, queue depth, freeze and the caller’s grants', async () => {
    await writePause(table, {
      paused: true,
      by: 'slack:U0OPS',
      reason: 'incident 4711',
      at: new Date('2026-11-22T02:00:00Z'),
    });
    const paused = await read('status', { userId: 'U0OPS' });
    expect(paused.reply.text).toBe('console-autopilot is paused');
    expect(paused.all).toContain('slack:U0OPS');
    expect(paused.all).toContain('incident 4711');
    expect(paused.all).toContain('*Queued actions*\\n0');
    expect(paused.all).toContain('`pause`');
    await writePause(table, { paused: false, by: 'slack:U0OPS', at: new Date() });
    const running = await read('status');
    expect(running.reply.text).toBe('console-autopilot is running');
    expect(running.all).toContain('none (reads only)');
  });

  it('answers "the platform is slow" when the deadline passes on a slow platform', async () => {
    sandbox.sandbox.setFaults({ ...NO_FAULTS, latencyMs: 1_500 });
    const { reply, log } = await read('segments', { deadlineMs: 300 });
    expect(reply.text).toContain('The platform is slow');
    expect(log.outcome).toBe('slow');
  });

  it('answers "the platform is slow" within the default 2.5 s deadline when the platform hangs', async () => {
    sandbox.sandbox.setFaults({ ...NO_FAULTS, hangRate: 1 });
    const { reply, log } = await read('role admin');
    expect(reply.text).toContain('The platform is slow');
    expect(log.outcome).toBe('slow');
  });

  it('explains a failing platform in words', async () => {
    sandbox.sandbox.setFaults({ ...NO_FAULTS, errorRate: 1 });
    const { reply, log } = await read('events 2');
    expect(reply.text).toContain('did not answer properly');
    expect(log.outcome).toBe('platform_error');
  });
});
