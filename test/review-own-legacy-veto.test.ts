/**
 * Review of this session's effect-key changes (61f9add, b6cdaf0, 318864f): ids holding '#' (and
 * group names holding ',' or '#') now go by a digest key, and "ordinary ids keep their keys, so
 * stored claims and vetoes still match". The ids whose key changed lost theirs: a person's Deny
 * (a veto, kept 90 days) on archiving config `feature_tour#beta`, written before the deploy under
 * `archive_config#feature_tour#beta`, is no longer read after it, and the next CI request archives
 * the config a release manager denied. Failing test only: reading the former key as well re-opens,
 * for those ids, the collision 318864f closed (config `x#dry-run`'s former key is the key of the
 * Deny on a dry run of config `x`), so the fix (a migration of stored vetoes, or reading the
 * former key only where it is unambiguous) is a decision to make.
 */
import { expect, it } from 'vitest';
import { readFinal } from '../src/state/audit.js';
import { writeVeto } from '../src/state/veto.js';
import { basePolicy, benchResetEachTest } from './worker/fixture.js';

const bench = benchResetEachTest();

// CI, not a Slack user: a person's chat grant would override any veto.
const ci = { source: 'ci', id: 'github-actions/deploy.yml' } as const;

it("a Deny written before the deploy on config 'feature_tour#beta' still stops its automated archive", async () => {
  const model = bench.api.sandbox.state.configs.get('feature_tour');
  if (!model) throw new Error('the sandbox seeds feature_tour');
  bench.api.sandbox.state.configs.set('feature_tour#beta', {
    ...structuredClone(model),
    id: 'feature_tour#beta',
  });
  // The previous version's key for this config (`archive_config#<id>`), where its Deny click wrote the veto.
  await writeVeto(bench.table, 'archive_config#feature_tour#beta', {
    by: 'slack:U0REL',
    at: new Date('2026-11-20T09:00:00Z'),
  });

  await bench.send({
    action: 'archive_config',
    configId: 'feature_tour#beta',
    reason: 'unused',
    force: true,
    requestedBy: ci,
    requestId: 'legacy-veto-1',
  });
  const worker = bench.worker({
    policy: { ...basePolicy(bench.slack.origin), actions: { archive_config: { requesters: ['ci:*'] } } },
  });
  expect(await bench.run(worker, await bench.receive())).toEqual({ batchItemFailures: [] });

  expect(bench.api.sandbox.state.configs.get('feature_tour#beta')?.archived).not.toBe(true);
  expect(await readFinal(bench.table, 'legacy-veto-1')).toMatchObject({ result: 'denied', rule: 'veto' });
});
