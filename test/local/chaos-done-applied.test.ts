/**
 * The chaos run's reverse check (src/local/chaos-effects.ts `doneWithoutEffect`): a request whose
 * final says flatly done must have had its change applied by the sandbox, as its own request log
 * says. The defect it would have caught: a 2xx that was no answer of the platform's (a proxy's
 * HTML page) told "done" though the sandbox never ran the call. Here the platform answers so, the
 * worker's real call is made, and a final saying done is fed to the checker with the sandbox's
 * record: the run fails. Once the call is carried out, the same final passes; a done told with its
 * "an earlier attempt may have made it" qualifier is not held to it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ActionRequest, parseActionRequest } from '../../src/actions/request.js';
import { createConsoleClient } from '../../src/console/index.js';
import { chaosFailures } from '../../src/local/chaos.js';
import { doneWithoutEffect, effectsAt } from '../../src/local/chaos-effects.js';
import { type ChaosMessage, chaosMix } from '../../src/local/chaos-mix.js';
import type { ChaosReport } from '../../src/local/chaos-report.js';
import { tellLedger } from '../../src/local/tell-ledger.js';
import { type RunningSandbox, startSandbox } from '../../src/sandbox/index.js';
import type { FinalOutcome } from '../../src/state/audit.js';
import { executeAction, type MutationClient } from '../../src/worker/execute.js';

let api: RunningSandbox;
beforeAll(async () => {
  api = await startSandbox({ rateLimits: false });
});
afterAll(async () => {
  await api?.close();
});

function request(message: ChaosMessage): ActionRequest & { requestId: string } {
  const parsed = parseActionRequest(message.body);
  if (!parsed.ok || !parsed.request.requestId) throw new Error(`not a request: ${message.body}`);
  return parsed.request as ActionRequest & { requestId: string };
}

/** The final the worker stores for an end (src/worker/finish.ts), with the outcome's own words. */
function finalOf(req: { requestId: string }, result: string, reason: string, extra = {}): FinalOutcome {
  return {
    result,
    reason,
    rule: 'admins may',
    requestId: req.requestId,
    at: new Date().toISOString(),
    ...extra,
  };
}

const report = (doneUnapplied: string[]): ChaosReport => ({
  sent: 2,
  drained: true,
  durationMs: 1,
  terminal: { archived: 1, 'groups-disabled': 1 },
  duplicatedEffects: [],
  lost: [],
  crashes: { midBatch: 1, early: 0, afterPut: 0, timedOut: 0 },
  invocations: 1,
  recordsDelivered: 2,
  faultsInjected: { malformed: 2 },
  mutationCalls: 2,
  effects: 0,
  effectsWithoutOutcome: [],
  doneWithoutEffect: doneUnapplied,
  doneChecked: 2,
  telling: tellLedger(
    [],
    {
      finals: new Map(),
      withReplyUrl: new Set(),
      channelOwed: new Set(),
      deliveries: new Map(),
      crashed: new Set(),
    },
    true,
  ),
});

describe('every request recorded as done had its change applied', () => {
  it('fails a done whose call the platform never carried out, passes it once carried out', async () => {
    const mix = chaosMix(api.sandbox, 60, 7);
    const archive = mix.find((m) => m.kind === 'archive');
    const disable = mix.find((m) => m.kind === 'disable');
    if (!archive || !disable) throw new Error('the mix has no archive or no disable');
    const messages = [archive, disable];
    const client = createConsoleClient({ baseUrl: api.url, apiKey: 'sandbox-key', maxRetries: 0 });

    // A proxy's HTML page with a 200 for every mutation: the sandbox runs none of them.
    api.sandbox.setFaults({
      malformedRate: 1,
      malformedKind: 'html',
      malformedStatus: 200,
      only: 'mutations',
    });
    for (const m of messages) expect((await executeAction(client, request(m), {})).kind).toBe('transient');
    api.sandbox.setFaults({ malformedRate: 0 });
    const before = effectsAt(api.sandbox);
    expect(before.faultsInjected).toEqual({ malformed: 2 });

    // Told "done" as the defect did: the checker names both requests, and the run fails.
    const finals = new Map([
      [request(archive).requestId, finalOf(request(archive), 'archived', 'config archived; admins may')],
      [
        request(disable).requestId,
        finalOf(request(disable), 'groups-disabled', 'groups disabled; admins may'),
      ],
    ]);
    const unapplied = doneWithoutEffect(messages, finals, before.calls);
    expect(unapplied).toEqual([request(archive).requestId, request(disable).requestId]);
    expect(chaosFailures(report(unapplied))).toEqual([
      '2 request(s) recorded as done whose change the sandbox never applied',
    ]);

    // Hedged ends are not held to it: the stored flag, or an earlier attempt's words in a done's reason.
    const answering: MutationClient = {
      releasePipelineTriggers: { approve: async () => ({}) },
      experiments: { disableGroups: async () => ({}) },
      dynamicConfigs: { archive: async () => ({}) },
    };
    const hedged = await executeAction(answering, request(archive), {}, true);
    if (hedged.kind !== 'done') throw new Error(`expected done, got ${hedged.kind}`);
    const hedgedFinals = new Map([
      [request(archive).requestId, finalOf(request(archive), 'archived', hedged.reason)],
      [
        request(disable).requestId,
        finalOf(request(disable), 'groups-disabled', 'disabled', { mayHaveBeenDone: true }),
      ],
    ]);
    expect(doneWithoutEffect(messages, hedgedFinals, before.calls)).toEqual([]);

    // The calls carried out for real: the same flat finals now pass.
    for (const m of messages) expect((await executeAction(client, request(m), {})).kind).toBe('done');
    expect(doneWithoutEffect(messages, finals, effectsAt(api.sandbox).calls)).toEqual([]);
    expect(chaosFailures(report([]))).toEqual([]);
  });

  it('holds only a done to it: a refusal or a dry run changes nothing', () => {
    const mix = chaosMix(api.sandbox, 60, 7);
    const dry = mix.find((m) => m.kind === 'dry-run');
    const archive = mix.find((m) => m.kind === 'archive');
    if (!dry || !archive) throw new Error('the mix has no dry run or no archive');
    const finals = new Map([
      [request(dry).requestId, finalOf(request(dry), 'would-mutate', 'would approve')],
      [request(archive).requestId, finalOf(request(archive), 'rejected', 'the Console API refused')],
    ]);
    expect(doneWithoutEffect([dry, archive], finals, new Map())).toEqual([]);
  });
});
