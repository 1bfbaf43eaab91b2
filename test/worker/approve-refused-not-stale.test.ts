/**
 * A 400 to an approve is told by what the platform said. The spec shows no error conditions for
 * the approve endpoint: its `phaseID` guard is one reason for a 400, not the only one (a body the
 * platform refuses, a pipeline it will not move now). Every 400 was headlined "Stale: …; the phase
 * is not the trigger's current phase", so a release manager read that the phase had moved on when
 * the platform said something else, and went looking for a phase change that never happened.
 *
 * The real worker on the emulators, with the real Console client over HTTP against a server that
 * answers the approve as the platform would (its error body); the reply Slack gets is read back.
 * The sandbox itself answers only its phase guard with a 400 (test/worker/worker.test.ts keeps
 * that case "stale").
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { clockOf, createConsoleClient } from '../../src/console/index.js';
import { readAudit } from '../../src/state/audit.js';
import { type ScriptedServer, startScriptedServer } from '../console/helpers/scripted-server.js';
import { benchForFile } from './fixture.js';

const bench = benchForFile();
let platform: ScriptedServer;
beforeAll(async () => {
  platform = await startScriptedServer();
});
afterAll(async () => {
  await platform?.close();
});

const paused = {
  status: 400,
  body: {
    status: 400,
    message: 'Release pipeline rp_1 is paused: approvals are disabled until it is resumed.',
  },
};

it('an approve refused with a 400 that names another cause is told as the platform refusing it, in its words, not as stale', async () => {
  platform.setScript((request) => (request.url.includes('/approve') ? paused : { status: 404 }));
  const client = createConsoleClient({
    baseUrl: platform.url,
    apiKey: 'test-key',
    mutationBudget: false,
    timeoutMs: 2_000,
    maxRetries: 0,
    clock: clockOf(() => bench.clock.now.getTime()),
  });
  const id = 'approve-paused-1';
  await bench.send({
    triggerId: 'trg_1',
    phaseId: 'ph_1',
    requestId: id,
    reply: { slackResponseUrl: bench.slack.url('/actions/paused-1') },
  });
  const out = await bench.run(bench.worker({ client }), await bench.receive());

  expect(out).toEqual({ batchItemFailures: [] });
  expect(platform.requests.filter((r) => r.url.includes('/approve'))).toHaveLength(1);
  const [record] = await readAudit(bench.table, id);
  expect(record?.result).toBe('rejected');
  expect(record?.reason).toContain('rp_1 is paused');
  const reply = bench.slack.posts.filter((p) => p.path === '/actions/paused-1');
  expect(reply).toHaveLength(1);
  const text = reply[0]?.body.text ?? '';
  expect(text).toContain(':x: The Console API refused to approve');
  expect(text).toContain('rp_1 is paused');
  expect(text).not.toMatch(/stale|not the trigger's current phase/i);
});
