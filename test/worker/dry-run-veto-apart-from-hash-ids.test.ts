/**
 * A dry run's Deny is kept under its effect key marked `#dry-run` (src/policy/veto-key.ts), and
 * ids may hold '#' (the identifier schema forbids only whitespace and control characters). The
 * archive of config `x` keyed `archive_config#x`, so the Deny of a dry run for config `x` was the
 * real veto of config `x#dry-run` (`archive_config#x#dry-run`), and that other config's real
 * archive was denied by a rehearsal's Deny on another config. The same held for an experiment id
 * with '#' (experiment `e#g`, group `dry-run`). Such ids go by a key of their own form now;
 * ordinary ids keep theirs, so claims and vetoes stored before still match.
 *
 * Until the Denies written before that deploy have expired (90 days), the worker reads a veto under
 * a change's former key as well (src/policy/veto-key.ts, test/worker/veto-under-former-effect-key
 * .test.ts), and the former key of `x#dry-run` is the dry run's veto key of `x`: meanwhile the
 * rehearsal's Deny refuses that other change (fail safe: a refusal, never a change made). Once the
 * former-key read is removed, these two cases archive and disable: turn their expectations back.
 */
import { expect, it } from 'vitest';
import { type EffectTarget, effectKey } from '../../src/actions/request.js';
import { dryRunVetoKey } from '../../src/policy/veto-key.js';
import { readFinal } from '../../src/state/audit.js';
import { writeVeto } from '../../src/state/veto.js';
import { basePolicy, benchResetEachTest } from './fixture.js';

const bench = benchResetEachTest(); // 10:00 on a Monday, in CI's office hours

// CI, not a Slack user: a person's chat grant would override any veto.
const ci = { source: 'ci', id: 'github-actions/deploy.yml' } as const;

/** A person denied the dry run of `target`'s change (its own veto, apart from the real one). */
async function dryRunDenied(target: EffectTarget) {
  await writeVeto(bench.table, dryRunVetoKey(effectKey(target)), { by: 'slack:U0REL', at: bench.clock.now });
}

const worker = () =>
  bench.worker({
    policy: {
      ...basePolicy(bench.slack.origin),
      actions: {
        archive_config: { requesters: ['ci:*'] },
        disable_groups: { requesters: ['ci:*'] },
      },
    },
  });

it("refuses, never makes, the archive of config x#dry-run when config x's dry run was denied (former-key read)", async () => {
  const model = bench.api.sandbox.state.configs.get('feature_tour');
  if (!model) throw new Error('the sandbox seeds feature_tour');
  bench.api.sandbox.state.configs.set('feature_tour#dry-run', {
    ...structuredClone(model),
    id: 'feature_tour#dry-run',
  });
  await dryRunDenied({ action: 'archive_config', configId: 'feature_tour' });

  await bench.send({
    action: 'archive_config',
    configId: 'feature_tour#dry-run',
    reason: 'unused',
    force: true,
    requestedBy: ci,
    requestId: 'hash-config-1',
  });
  expect(await bench.run(worker(), await bench.receive())).toEqual({ batchItemFailures: [] });

  expect(await readFinal(bench.table, 'hash-config-1')).toMatchObject({ result: 'denied', rule: 'veto' });
  expect(bench.api.sandbox.state.configs.get('feature_tour#dry-run')?.archived).not.toBe(true);
});

it("refuses, never makes, the disable of group dry-run of experiment e#g when the dry run of e's group g was denied (former-key read)", async () => {
  const model = bench.api.sandbox.state.experiments.get('checkout_redesign');
  if (!model) throw new Error('the sandbox seeds checkout_redesign');
  const experiment = structuredClone(model);
  experiment.id = 'checkout_redesign#control';
  for (const group of experiment.groups) if (group.name === 'test') group.name = 'dry-run';
  bench.api.sandbox.state.experiments.set(experiment.id, experiment);
  await dryRunDenied({
    action: 'disable_groups',
    experimentId: 'checkout_redesign',
    groupNames: ['control'],
  });

  await bench.send({
    action: 'disable_groups',
    experimentId: 'checkout_redesign#control',
    groupNames: ['dry-run'],
    requestedBy: ci,
    requestId: 'hash-experiment-1',
  });
  expect(await bench.run(worker(), await bench.receive())).toEqual({ batchItemFailures: [] });

  expect(await readFinal(bench.table, 'hash-experiment-1')).toMatchObject({ result: 'denied', rule: 'veto' });
});

it('keeps the keys of ordinary ids, so claims and vetoes stored before still match', () => {
  expect(effectKey({ action: 'archive_config', configId: 'feature_tour' })).toBe(
    'archive_config#feature_tour',
  );
  expect(
    effectKey({ action: 'disable_groups', experimentId: 'exp_1', groupNames: ['test', 'control'] }),
  ).toBe('disable_groups#exp_1#control,test');
  expect(dryRunVetoKey('archive_config#feature_tour')).toBe('archive_config#feature_tour#dry-run');
});
