/**
 * Ids holding '#' (and group names holding ',' or '#') took a digest effect key; a person's Deny
 * (a veto, kept 90 days) written before that deploy is stored under the change's former key
 * (src/actions/former-effect-key.ts). The worker reads a veto under both keys, so such a Deny still
 * stops automation: without it, the next CI request archived the config a release manager denied.
 * Ordinary ids have one key and read one veto item, in the request's one state batch.
 */
import { BatchGetItemCommand, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { expect, it } from 'vitest';
import { readFinal } from '../../src/state/audit.js';
import type { StateTable } from '../../src/state/table.js';
import { writeVeto } from '../../src/state/veto.js';
import { type Bench, basePolicy, benchResetEachTest } from './fixture.js';

const bench = benchResetEachTest();

// CI, not a Slack user: a person's chat grant would override any veto.
const ci = { source: 'ci', id: 'github-actions/deploy.yml' } as const;

const policy = (b: Bench) => ({
  ...basePolicy(b.slack.origin),
  actions: { archive_config: { requesters: ['ci:*'] }, disable_groups: { requesters: ['ci:*'] } },
});

/** A copy of the sandbox's config feature_tour under `id`. */
function seedConfig(id: string) {
  const model = bench.api.sandbox.state.configs.get('feature_tour');
  if (!model) throw new Error('the sandbox seeds feature_tour');
  bench.api.sandbox.state.configs.set(id, { ...structuredClone(model), id });
}

/** The previous version's Deny: written under the key the change had then. */
async function deniedBeforeDeploy(formerKey: string) {
  await writeVeto(bench.table, formerKey, { by: 'slack:U0REL', at: new Date('2026-11-20T09:00:00Z') });
}

/** The bench's table, recording each read that names a veto item: the veto keys of each call. */
function recordingVetoReads(): { table: StateTable; reads: string[][] } {
  const reads: string[][] = [];
  const real = bench.table.client;
  const client = {
    send: async (command: unknown) => {
      const keys =
        command instanceof BatchGetItemCommand
          ? Object.values(command.input.RequestItems ?? {}).flatMap((k) => k.Keys ?? [])
          : command instanceof GetItemCommand && command.input.Key
            ? [command.input.Key]
            : [];
      const vetoes = keys.map((key) => key.pk?.S ?? '').filter((pk) => pk.startsWith('veto#'));
      if (vetoes.length > 0) reads.push(vetoes);
      return real.send(command as never);
    },
  } as unknown as StateTable['client'];
  return { table: { client, tableName: bench.table.tableName }, reads };
}

it("a Deny written before the deploy on config 'feature_tour#beta' still stops its automated archive", async () => {
  seedConfig('feature_tour#beta');
  await deniedBeforeDeploy('archive_config#feature_tour#beta');

  await bench.send({
    action: 'archive_config',
    configId: 'feature_tour#beta',
    reason: 'unused',
    force: true,
    requestedBy: ci,
    requestId: 'legacy-veto-1',
  });
  expect(await bench.run(bench.worker({ policy: policy(bench) }), await bench.receive())).toEqual({
    batchItemFailures: [],
  });

  expect(bench.api.sandbox.state.configs.get('feature_tour#beta')?.archived).not.toBe(true);
  expect(await readFinal(bench.table, 'legacy-veto-1')).toMatchObject({ result: 'denied', rule: 'veto' });
});

it('a Deny written before the deploy on groups named with a comma still stops their automated disable', async () => {
  const model = bench.api.sandbox.state.experiments.get('checkout_redesign');
  if (!model) throw new Error('the sandbox seeds checkout_redesign');
  const experiment = structuredClone(model);
  for (const group of experiment.groups) if (group.name === 'test') group.name = 'test,eu';
  bench.api.sandbox.state.experiments.set(experiment.id, experiment);
  await deniedBeforeDeploy('disable_groups#checkout_redesign#test,eu');

  await bench.send({
    action: 'disable_groups',
    experimentId: 'checkout_redesign',
    groupNames: ['test,eu'],
    requestedBy: ci,
    requestId: 'legacy-veto-2',
  });
  expect(await bench.run(bench.worker({ policy: policy(bench) }), await bench.receive())).toEqual({
    batchItemFailures: [],
  });

  expect(await readFinal(bench.table, 'legacy-veto-2')).toMatchObject({ result: 'denied', rule: 'veto' });
});

it('a dry run meets the real change’s veto written under the former key', async () => {
  seedConfig('feature_tour#beta');
  await deniedBeforeDeploy('archive_config#feature_tour#beta');

  await bench.send({
    action: 'archive_config',
    configId: 'feature_tour#beta',
    reason: 'unused',
    force: true,
    dryRun: true,
    requestedBy: ci,
    requestId: 'legacy-veto-3',
  });
  expect(await bench.run(bench.worker({ policy: policy(bench) }), await bench.receive())).toEqual({
    batchItemFailures: [],
  });

  expect(await readFinal(bench.table, 'legacy-veto-3')).toMatchObject({ result: 'denied', rule: 'veto' });
});

it('reads the former key in the same batch, and an ordinary id reads one veto item only', async () => {
  seedConfig('feature_tour#beta');
  const { table, reads } = recordingVetoReads();
  const worker = bench.worker({ policy: policy(bench), table });
  const send = (configId: string, requestId: string) =>
    bench.send({
      action: 'archive_config',
      configId,
      reason: 'unused',
      force: true,
      requestedBy: ci,
      requestId,
    });

  await send('feature_tour', 'ordinary-1');
  expect(await bench.run(worker, await bench.receive())).toEqual({ batchItemFailures: [] });
  expect(reads).toEqual([['veto#archive_config#feature_tour']]);

  reads.length = 0;
  await send('feature_tour#beta', 'digest-1');
  expect(await bench.run(worker, await bench.receive())).toEqual({ batchItemFailures: [] });
  expect(reads).toEqual([
    [
      expect.stringMatching(/^veto#archive_config~sha256#[0-9a-f]{64}$/),
      'veto#archive_config#feature_tour#beta',
    ],
  ]);
});
