/**
 * Issue 13 item 6: a request's whole story from the audit trail the real worker writes (injected
 * clock): `npx autopilot audit --request | --target | --since` and `/autopilot why <id>`.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { readRequestAudit } from '../../src/state/audit.js';
import { captureIo } from '../helpers/cli-io.js';
import { commandBody, signedRequest } from '../helpers/slack-requests.js';
import { buildApp } from '../webhook/harness.js';
import { benchForFile } from '../worker/fixture.js';

const bench = benchForFile();
/** A trigger whose current phase is the canary, so its approval is not stale. */
let trigger = '';
const MONDAY_EVENING = new Date('2026-11-23T20:00:00Z');
const TUESDAY_MORNING = new Date('2026-11-24T09:05:00Z');

beforeAll(async () => {
  trigger = [...bench.api.sandbox.state.triggers.values()].find((t) => t.currentPhaseID === 'ph_1')
    ?.id as string;
  const worker = bench.worker();
  // Deferred on Monday evening (outside office hours), approved on Tuesday morning.
  bench.clock.now = MONDAY_EVENING;
  await bench.send({
    triggerId: trigger,
    phaseId: 'ph_1',
    requestId: 'story-1',
    reason: 'canary <!channel> fine',
  });
  await bench.run(worker, await bench.receive(1));
  await bench.send({
    triggerId: 'trg_zz6',
    phaseId: 'ph_1',
    requestId: 'story-2',
    requestedBy: { source: 'ci', id: 'blocked' },
  });
  await bench.run(worker, await bench.receive(1));
  bench.clock.now = TUESDAY_MORNING;
  // The deferred copy comes back (its delay is for real SQS; here it is received at once).
  await bench.purge();
  await bench.send({
    triggerId: trigger,
    phaseId: 'ph_1',
    requestId: 'story-1',
    requestedAt: MONDAY_EVENING.toISOString(),
    reason: 'canary <!channel> fine',
  });
  await bench.run(worker, await bench.receive(1));
});

function io() {
  return captureIo({
    env: {
      STATE_TABLE_NAME: bench.table.tableName,
      AWS_ENDPOINT_URL_DYNAMODB: bench.emulators.dynamodbEndpoint,
    },
    now: () => new Date('2026-11-24T10:00:00Z'),
  });
}

describe('autopilot audit', () => {
  it('tells one request from its first decision to its end', async () => {
    const t = io();
    expect(await runCli(['audit', '--request', 'story-1'], t.io)).toBe(0);
    const text = t.out();
    expect(text).toContain(
      `request story-1: approve_phase trigger ${trigger} phase ph_1, asked by ci:github-actions/deploy.yml`,
    );
    expect(text).toMatch(/2026-11-23T20:00:00.000Z {2}deferred {2}rule CI in office hours: .*looks again at/);
    expect(text).toMatch(/2026-11-24T09:05:00.000Z {2}approved {2}rule CI in office hours/);
    expect(text).toContain('ended: approved (rule CI in office hours)');
    expect(text.indexOf('deferred')).toBeLessThan(text.indexOf('approved'));
  });

  it('finds every request about a target, and lists requests since a time', async () => {
    const byTarget = io();
    expect(await runCli(['audit', '--target', 'trg_zz6', '--json'], byTarget.io)).toBe(0);
    const stories = JSON.parse(byTarget.out()) as Array<{
      requestId: string;
      steps: Array<{ result: string }>;
    }>;
    expect(stories.map((s) => s.requestId)).toEqual(['story-2']);
    expect(stories[0]?.steps.map((s) => s.result)).toEqual(['denied']);
    const since = io();
    expect(await runCli(['audit', '--since', '48h'], since.io)).toBe(0);
    expect(since.out()).toContain('story-1');
    expect(since.out()).toContain('story-2');
    expect(since.out()).toContain('2 request(s).');
  });

  it('says when a request is unknown, and refuses a call that says nothing', async () => {
    const t = io();
    expect(await runCli(['audit', '--request', 'nope'], t.io)).toBe(1);
    expect(t.err()).toContain('request nope: no audit record');
    const none = io();
    expect(await runCli(['audit'], none.io)).toBe(2);
    expect(none.err()).toContain('--request <id>, --target <id> or --since <24h>');
  });
});

describe('/autopilot why', () => {
  it("answers with the request's story, every untrusted line escaped", async () => {
    const now = Date.parse('2026-11-24T10:00:00Z');
    const webhook = buildApp({ audit: { read: (id) => readRequestAudit(bench.table, id) }, now: () => now });
    const body = commandBody({ text: 'why story-1' });
    const response = await webhook.app.request(
      signedRequest('/slack/commands', body, { timestamp: now / 1000 }),
    );
    const reply = (await response.json()) as { text: string; blocks: Array<{ text?: { text: string } }> };
    const shown = reply.blocks.map((b) => b.text?.text ?? '').join('\n');
    expect(shown).toContain('*Request* `story-1`');
    expect(shown).toContain('deferred');
    expect(shown).toContain('ended: approved');
    expect(JSON.stringify(reply)).not.toContain('<!channel>');
    const bad = await webhook.app.request(
      signedRequest('/slack/commands', commandBody({ text: 'why <@U1>' }), { timestamp: now / 1000 }),
    );
    expect(JSON.stringify(await bad.json())).toContain('is not valid: letters, digits and . _ : @ / - only');
  });

  it('keeps a reason holding ``` inside its code block (no live formatting)', async () => {
    const now = Date.parse('2026-11-24T10:00:00Z');
    const record = {
      requestId: 'fence-1',
      at: '2026-11-24T09:00:00.000Z',
      action: 'approve_phase',
      target: 'trigger trg_1 phase ph_1',
      effectKey: 'approve_phase#trg_1#ph_1',
      requester: 'ci:deploy',
      rule: 'otherwise',
      reason: 'platform said: ``` *URGENT* ~approve~ _now_ ```',
      result: 'denied',
      dryRun: false,
    } as const;
    const webhook = buildApp({ audit: { read: async () => ({ records: [record] }) }, now: () => now });
    const response = await webhook.app.request(
      signedRequest('/slack/commands', commandBody({ text: 'why fence-1' }), { timestamp: now / 1000 }),
    );
    const reply = (await response.json()) as { blocks: Array<{ text?: { text: string } }> };
    const steps = reply.blocks[1]?.text?.text ?? '';
    expect(steps.startsWith('```\n')).toBe(true);
    expect(steps.match(/```/g)).toHaveLength(2); // the block's own fences, nothing from the reason
    expect(steps).toContain("platform said: ''' *URGENT*");
  });
});
