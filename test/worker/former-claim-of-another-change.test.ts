/**
 * Former effect keys collide among themselves, not only with keys written today: experiment
 * "checkout#eu" with groups ["a,b"] and with groups ["a", "b"] both had the former key
 * `disable_groups#checkout#eu#a,b` (and trigger "a#b" phase "c" / trigger "a" phase "b#c" both had
 * `approve_phase#a#b#c`). Today each goes by its own digest key, yet the worker takes a claim
 * under the former key whoever's it is (`anyOwner`) whenever an id holds '#'. So a change of ["a","b"]
 * completed before the deploy made a later request for ["a,b"] be told "Already done" (replayed):
 * group "a,b" was never disabled, and the person was told it was.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { formerEffectKey } from '../../src/actions/former-effect-key.js';
import { type ActionRequest, effectKey } from '../../src/actions/request.js';
import type { PolicyInput } from '../../src/policy/schema.js';
import { readAudit, readFinal } from '../../src/state/audit.js';
import { completeEffect } from '../../src/state/effects.js';
import { basePolicy, benchForFile } from './fixture.js';

const bench = benchForFile();
beforeAll(async () => {
  bench.clock.now = new Date('2026-11-23T10:00:00Z');
});

const ci = { source: 'ci', id: 'github-actions/deploy.yml' } as const;
const policy = (): PolicyInput => ({
  ...basePolicy(bench.slack.origin),
  actions: { disable_groups: { requesters: ['ci:*'] } },
});
const asRequest = (fields: object) =>
  ({ version: 1, requestedAt: bench.clock.now.toISOString(), requestedBy: ci, ...fields }) as ActionRequest;

describe('a claim under a former key that another change had too', () => {
  it('is not taken as this change done: group "a,b" is disabled, not told "Already done"', async () => {
    const model = bench.api.sandbox.state.experiments.get('checkout_redesign');
    if (!model) throw new Error('the sandbox seeds checkout_redesign');
    const experiment = structuredClone(model);
    experiment.id = 'checkout#eu';
    const [g1, g2] = experiment.groups;
    if (!g1 || !g2) throw new Error('checkout_redesign has two groups');
    const g3 = { ...structuredClone(g2), id: `${g2.id}-3` };
    experiment.groups.push(g3);
    g1.name = 'a';
    g2.name = 'b';
    g3.name = 'a,b';
    for (const g of [g1, g2, g3]) g.disabled = false;
    bench.api.sandbox.state.experiments.set(experiment.id, experiment);

    const other = { action: 'disable_groups' as const, experimentId: 'checkout#eu', groupNames: ['a', 'b'] };
    const mine = { action: 'disable_groups' as const, experimentId: 'checkout#eu', groupNames: ['a,b'] };
    // Two different changes, two keys today, one former key.
    expect(effectKey(asRequest(mine))).not.toBe(effectKey(asRequest(other)));
    expect(formerEffectKey(asRequest(mine))).toBe(formerEffectKey(asRequest(other)));
    // ["a", "b"] was disabled before the deploy: its completed claim is under the former key.
    await completeEffect(
      bench.table,
      formerEffectKey(asRequest(other)),
      'other-list-1/m-1/u-1',
      {
        result: 'groups-disabled',
        reason: 'groups a, b of experiment checkout#eu disabled',
        rule: 'actions.disable_groups',
        requestId: 'other-list-1',
        at: '2026-11-20T09:00:00.000Z',
      },
      new Date('2026-11-20T09:00:00Z'),
    );

    await bench.send({ ...mine, requestedBy: ci, requestId: 'comma-after-deploy' });
    expect(await bench.run(bench.worker({ policy: policy() }), await bench.receive())).toEqual({
      batchItemFailures: [],
    });

    const [told] = await readAudit(bench.table, 'comma-after-deploy');
    expect(told?.result).not.toBe('replayed');
    expect(await readFinal(bench.table, 'comma-after-deploy')).toMatchObject({ result: 'groups-disabled' });
    expect(bench.api.sandbox.state.experiments.get('checkout#eu')?.groups[2]?.disabled).toBe(true);
  });
});
