/**
 * Two disable_groups requests for different changes must never share an effect key: the worker
 * claims the effect once and tells every later request with the same key "Already done". Group
 * names are free text (1–200 characters, commas allowed), and the key joined them with commas, so
 * disabling the one group "test,test_b" and disabling the two groups "test" and "test_b" had the
 * same key: the second request was told it was done, and its two groups stayed enabled.
 */
import { expect, it } from 'vitest';
import { effectKey } from '../../src/actions/request.js';
import { readAudit } from '../../src/state/audit.js';
import { benchForFile } from './fixture.js';

const bench = benchForFile();

it('gives different group sets different effect keys, however the names are spelled', () => {
  const base = {
    version: 1 as const,
    action: 'disable_groups' as const,
    experimentId: 'exp',
    requestedBy: { source: 'slack' as const, id: 'U0ADMIN' },
    requestedAt: '2026-11-23T10:00:00Z',
  };
  expect(effectKey({ ...base, groupNames: ['a,b'] })).not.toBe(
    effectKey({ ...base, groupNames: ['a', 'b'] }),
  );
  // The order of the names is no part of the change: still one key.
  expect(effectKey({ ...base, groupNames: ['b', 'a'] })).toBe(effectKey({ ...base, groupNames: ['a', 'b'] }));
});

it('disables groups "test" and "test_b" after the one group named "test,test_b" was disabled', async () => {
  const experiment = bench.api.sandbox.state.experiments.get('search_ranking_test');
  if (!experiment) throw new Error('the sandbox seeds search_ranking_test');
  const template = experiment.groups[0];
  experiment.groups.push({ ...structuredClone(template!), name: 'test,test_b', disabled: false });
  const worker = bench.worker();
  const admin = { source: 'slack' as const, id: 'U0ADMIN' }; // holds the chat grant disable_groups

  await bench.send({
    action: 'disable_groups',
    experimentId: 'search_ranking_test',
    groupNames: ['test,test_b'],
    requestedBy: admin,
    requestId: 'slack-review-one-group',
  });
  await bench.run(worker, await bench.receive());
  expect((await readAudit(bench.table, 'slack-review-one-group')).map((r) => r.result)).toEqual([
    'groups-disabled',
  ]);

  await bench.send({
    action: 'disable_groups',
    experimentId: 'search_ranking_test',
    groupNames: ['test', 'test_b'],
    requestedBy: admin,
    requestId: 'slack-review-two-groups',
  });
  await bench.run(worker, await bench.receive());

  const disabled = (name: string) => experiment.groups.find((g) => g.name === name)?.disabled;
  expect(disabled('test')).toBe(true);
  expect(disabled('test_b')).toBe(true);
  expect((await readAudit(bench.table, 'slack-review-two-groups')).map((r) => r.result)).toEqual([
    'groups-disabled',
  ]);
});
