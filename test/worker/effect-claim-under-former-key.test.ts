/**
 * Ids holding '#' (and group names holding ',' or '#') took a digest effect key. A claim the
 * previous version wrote is under the change's former key (src/actions/former-effect-key.ts): a
 * call that got no answer just before the deploy left its claim there, marked "may have reached
 * the platform", and a change completed then left its outcome there. The retry after the deploy
 * claims under the new key: it must still hear of that call (say the change may have been that
 * call's, take no second limit unit), and a completed change must be told, not made again.
 *
 * The previous version's claim is made as it made it: the first delivery runs against the sandbox
 * (its answer lost after the effect), and its claim item is then moved to the former key.
 */
import { DeleteItemCommand, GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { formerEffectKey } from '../../src/actions/former-effect-key.js';
import { type ActionRequest, effectKey } from '../../src/actions/request.js';
import type { PolicyInput } from '../../src/policy/schema.js';
import { readAudit, readFinal } from '../../src/state/audit.js';
import { completeEffect, effectItemKey } from '../../src/state/effects.js';
import { type Bench, basePolicy, benchResetEachTest, copyTrigger } from './fixture.js';

// One attempt per call; 1 s: the fault injected is an answer that never comes.
const bench = benchResetEachTest({ client: { timeoutMs: 1_000, maxRetries: 0 } });
beforeEach(async () => {
  bench.api.sandbox.setFaults({ hangAfterEffectRate: 0 });
});

const ci = { source: 'ci', id: 'github-actions/deploy.yml' } as const;

/** `maxPerDay` archives a day (a test file's tests share the day's counter: one that counts sets it). */
const ciPolicy = (maxPerDay = 20): PolicyInput => ({
  ...basePolicy(bench.slack.origin),
  actions: {
    archive_config: { requesters: ['ci:*'], maxPerDay },
    disable_groups: { requesters: ['ci:*'] },
  },
});

const asRequest = (fields: object) =>
  ({ version: 1, requestedAt: bench.clock.now.toISOString(), requestedBy: ci, ...fields }) as ActionRequest;

/** The claim item the current version wrote under `request`'s key, moved to its former key. */
async function storedBeforeDeploy(request: ActionRequest): Promise<void> {
  const { client, tableName } = bench.table;
  const current = effectItemKey(effectKey(request));
  const former = effectItemKey(formerEffectKey(request));
  expect(former).not.toEqual(current);
  const { Item } = await client.send(
    new GetItemCommand({ TableName: tableName, Key: current, ConsistentRead: true }),
  );
  if (!Item) throw new Error('the first delivery left a claim');
  await client.send(new PutItemCommand({ TableName: tableName, Item: { ...Item, ...former } }));
  await client.send(new DeleteItemCommand({ TableName: tableName, Key: current }));
}

/** Delivers `event`'s first time with the platform's answer lost after the effect. */
async function answerLost(event: Awaited<ReturnType<Bench['receive']>>, policy = ciPolicy()) {
  bench.api.sandbox.setFaults({ hangAfterEffectRate: 1, only: 'mutations' });
  try {
    expect((await bench.run(bench.worker({ policy }), event)).batchItemFailures).toHaveLength(1);
  } finally {
    bench.api.sandbox.setFaults({ hangAfterEffectRate: 0 });
  }
}

const archives = (configId: string) =>
  bench.api.sandbox.requests.filter(
    (r) =>
      r.method === 'PUT' &&
      decodeURIComponent(r.path).endsWith(`/dynamic_configs/${configId}/archive`) &&
      !r.fault &&
      r.status === 200,
  ).length;

function seedConfig(id: string) {
  const model = bench.api.sandbox.state.configs.get('feature_tour');
  if (!model) throw new Error('the sandbox seeds feature_tour');
  bench.api.sandbox.state.configs.set(id, { ...structuredClone(model), id, archived: false });
}

describe('a claim written under the former effect key before the deploy', () => {
  it('an approval retried after the deploy says the unanswered call may have approved the phase', async () => {
    copyTrigger(bench, 'rel#2026');
    const phase = bench.api.sandbox.state.triggers.get('rel#2026')?.currentPhaseID as string;
    const fields = {
      action: 'approve_phase' as const,
      triggerId: 'rel#2026',
      phaseId: phase,
      requestId: 'across-1',
    };
    await bench.send({ ...fields, requestedBy: ci });
    const event = await bench.receive();
    await answerLost(event);
    // The platform approved it; only the answer was lost. Then the deploy.
    expect(bench.api.sandbox.state.triggers.get('rel#2026')?.currentPhaseID).not.toBe(phase);
    await storedBeforeDeploy(asRequest(fields));

    // SQS delivers the message again, to the new version.
    expect(await bench.run(bench.worker({ policy: ciPolicy() }), event)).toEqual({ batchItemFailures: [] });

    const audit = await readAudit(bench.table, 'across-1');
    expect(audit.map((r) => r.result)).toEqual(['stale']);
    expect(audit[0]?.reason).toMatch(/earlier attempt .*may have been .*approved/);
    expect(await readFinal(bench.table, 'across-1')).toMatchObject({
      result: 'stale',
      mayHaveBeenDone: true,
    });
  });

  it('an archive retried after the deploy takes no second unit of the daily limit', async () => {
    seedConfig('feature_tour#beta');
    const fields = {
      action: 'archive_config' as const,
      configId: 'feature_tour#beta',
      reason: 'unused',
      force: true,
      requestId: 'across-2',
    };
    await bench.send({ ...fields, requestedBy: ci });
    const event = await bench.receive();
    await answerLost(event, ciPolicy(1));
    expect(bench.api.sandbox.state.configs.get('feature_tour#beta')?.archived).toBe(true);
    await storedBeforeDeploy(asRequest(fields));

    expect(await bench.run(bench.worker({ policy: ciPolicy(1) }), event)).toEqual({ batchItemFailures: [] });

    // maxPerDay 1: the unanswered call's unit is this change's; the retry is not held as over it.
    const final = await readFinal(bench.table, 'across-2');
    expect(final?.result).toBe('archived');
    expect(final?.reason).toContain('may have been that attempt');
  });

  it('a change completed before the deploy is told as done to a later request, not made again', async () => {
    seedConfig('feature_tour#gamma');
    const fields = {
      action: 'archive_config' as const,
      configId: 'feature_tour#gamma',
      reason: 'unused',
      force: true,
    };
    const outcome = {
      result: 'archived',
      reason: 'config feature_tour#gamma archived',
      rule: 'actions.archive_config',
      requestId: 'before-deploy-1',
      at: '2026-11-20T09:00:00.000Z',
    };
    // As the previous version completed it.
    await completeEffect(
      bench.table,
      formerEffectKey(asRequest(fields)),
      'before-deploy-1/m-1/u-1',
      outcome,
      new Date('2026-11-20T09:00:00Z'),
    );
    bench.api.sandbox.state.configs.get('feature_tour#gamma')!.archived = true;
    const before = archives('feature_tour#gamma');

    await bench.send({ ...fields, requestedBy: ci, requestId: 'after-deploy-1' });
    expect(await bench.run(bench.worker({ policy: ciPolicy() }), await bench.receive())).toEqual({
      batchItemFailures: [],
    });

    expect(archives('feature_tour#gamma')).toBe(before);
    const [told] = await readAudit(bench.table, 'after-deploy-1');
    expect(told).toMatchObject({ result: 'replayed', replayOf: 'before-deploy-1' });
  });

  it("groups named with a comma are not taken as done by another list's claim under their former key", async () => {
    // ["eu,test"] had the key ["eu", "test"] has today: a claim there may be that other change's.
    const model = bench.api.sandbox.state.experiments.get('checkout_redesign');
    if (!model) throw new Error('the sandbox seeds checkout_redesign');
    const experiment = structuredClone(model);
    const last = experiment.groups.at(-1);
    if (!last) throw new Error('checkout_redesign has groups');
    last.name = 'eu,test';
    last.disabled = false;
    bench.api.sandbox.state.experiments.set(experiment.id, experiment);
    const fields = {
      action: 'disable_groups' as const,
      experimentId: 'checkout_redesign',
      groupNames: ['eu,test'],
    };
    expect(formerEffectKey(asRequest(fields))).toBe(
      effectKey(asRequest({ ...fields, groupNames: ['eu', 'test'] })),
    );
    await completeEffect(
      bench.table,
      effectKey(asRequest({ ...fields, groupNames: ['eu', 'test'] })),
      'other-list-1/m-1/u-1',
      {
        result: 'groups-disabled',
        reason: 'groups eu, test of experiment checkout_redesign disabled',
        rule: 'actions.disable_groups',
        requestId: 'other-list-1',
        at: '2026-11-23T09:00:00.000Z',
      },
      new Date('2026-11-23T09:00:00Z'),
    );

    await bench.send({ ...fields, requestedBy: ci, requestId: 'comma-1' });
    expect(await bench.run(bench.worker({ policy: ciPolicy() }), await bench.receive())).toEqual({
      batchItemFailures: [],
    });

    expect(await readFinal(bench.table, 'comma-1')).toMatchObject({ result: 'groups-disabled' });
    expect(bench.api.sandbox.state.experiments.get('checkout_redesign')?.groups.at(-1)?.disabled).toBe(true);
  });
});
