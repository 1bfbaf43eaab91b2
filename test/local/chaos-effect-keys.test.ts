/**
 * `npm run chaos` counts each successful mutation in the sandbox's log under an effect key and
 * checks it against the requests recorded as done (by `effectKey(request)`, the key the worker
 * claims). The harness built its keys with a copy of its own, which did not follow effectKey for
 * group names holding ',' or '#' or for a long list (those go by a digest): a run with such a
 * request would report an effect without an outcome that never happened (and miss a real
 * duplicate). Here the worker's own calls, made on the sandbox over HTTP, are counted under the
 * requests' effect keys.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type ActionRequest, effectKey } from '../../src/actions/request.js';
import { createConsoleClient } from '../../src/console/index.js';
import { effectsAt } from '../../src/local/chaos-effects.js';
import { type RunningSandbox, startSandbox } from '../../src/sandbox/index.js';
import { executeAction } from '../../src/worker/execute.js';

let api: RunningSandbox;
beforeAll(async () => {
  api = await startSandbox({ rateLimits: false });
});
afterAll(async () => {
  await api?.close();
});

const requestedBy = { source: 'ci', id: 'github-actions/deploy.yml' } as const;
const requestedAt = '2026-11-23T10:00:00.000Z';

function disableGroups(experimentId: string, groupNames: string[]): ActionRequest {
  return { version: 1, action: 'disable_groups', experimentId, groupNames, requestedBy, requestedAt };
}

it('counts each mutation the worker makes under the effect key of its request', async () => {
  // Groups whose names the effect key must not run together, and a list long enough to be hashed.
  const long = Array.from({ length: 12 }, (_, i) => `g${i}_${'x'.repeat(190)}`);
  const names = { checkout_redesign: ['a,b', 'c'], free_shipping_banner: ['x#y'], one_click_pay: long };
  for (const [id, groups] of Object.entries(names)) {
    const experiment = api.sandbox.state.experiments.get(id);
    const model = experiment?.groups[0];
    if (!experiment || !model) throw new Error(`the sandbox has no experiment ${id}`);
    for (const name of groups) experiment.groups.push({ ...model, id: `${id}_${name}`, name });
  }
  const requests: ActionRequest[] = [
    ...Object.entries(names).map(([id, groups]) => disableGroups(id, groups)),
    { version: 1, action: 'approve_phase', triggerId: 'trg_1', phaseId: 'ph_1', requestedBy, requestedAt },
  ];

  const client = createConsoleClient({ baseUrl: api.url, apiKey: 'sandbox-key', maxRetries: 0 });
  for (const request of requests)
    expect(await executeAction(client, request, {})).toMatchObject({ kind: 'done' });

  const { calls } = effectsAt(api.sandbox);
  expect(new Set(calls.keys())).toEqual(new Set(requests.map(effectKey)));
});
