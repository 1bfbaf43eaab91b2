/**
 * Trigger and phase ids may hold '#' (the identifier schema forbids only whitespace and control
 * characters), and the effect key of approve_phase joined them with '#': trigger "rel#2026" phase
 * "canary" and trigger "rel" phase "2026#canary" had one key, so once the first was approved the
 * second, another trigger's phase, was told "Already done" and never approved (and a Deny of one
 * vetoed the other). Ids holding '#' now go by a key of their own form; ordinary ids keep theirs.
 */
import { expect, it } from 'vitest';
import { type ActionRequest, effectKey } from '../../src/actions/request.js';
import { readAudit } from '../../src/state/audit.js';
import { benchForFile } from './fixture.js';

const bench = benchForFile();

/** A sandbox trigger `id` (a copy of trg_1) whose current phase is `phaseId`. */
function addTrigger(id: string, phaseId: string): void {
  const model = bench.api.sandbox.state.triggers.get('trg_1');
  if (!model) throw new Error('the sandbox seeds trg_1');
  const trigger = structuredClone(model);
  const [first, ...rest] = trigger.phases;
  trigger.phases = [{ ...first!, id: phaseId }, ...rest];
  Object.assign(trigger, {
    id,
    currentPhaseID: phaseId,
    currentPhase: first!.name,
    status: model.status,
    actions: [],
  });
  bench.api.sandbox.state.triggers.set(id, trigger);
}

/** Successful approvals of trigger `id`'s phases, from the sandbox's request log. */
const approvalsOf = (id: string) =>
  bench.api.sandbox.requests.filter(
    (r) =>
      r.method === 'PUT' &&
      r.status === 200 &&
      decodeURIComponent(r.path).endsWith(`/release_pipeline_triggers/${id}/approve`),
  ).length;

it('approves the phases of two triggers whose ids joined with # read the same', async () => {
  addTrigger('rel#2026', 'canary');
  addTrigger('rel', '2026#canary');
  const worker = bench.worker();

  await bench.send({ triggerId: 'rel#2026', phaseId: 'canary', requestId: 'hash-ids-1' });
  await bench.run(worker, await bench.receive());
  await bench.send({ triggerId: 'rel', phaseId: '2026#canary', requestId: 'hash-ids-2' });
  await bench.run(worker, await bench.receive());

  expect((await readAudit(bench.table, 'hash-ids-1')).map((r) => r.result)).toEqual(['approved']);
  expect((await readAudit(bench.table, 'hash-ids-2')).map((r) => r.result)).toEqual(['approved']);
  expect(approvalsOf('rel#2026')).toBe(1);
  expect(approvalsOf('rel')).toBe(1);
});

it('keeps the effect key of ordinary ids, so claims and vetoes stored before still match', () => {
  const request = {
    version: 1,
    action: 'approve_phase',
    triggerId: 'trg_1',
    phaseId: 'ph_1',
    requestedBy: { source: 'ci', id: 'deploy.yml' },
    requestedAt: '2026-11-23T10:00:00.000Z',
  } satisfies ActionRequest;
  expect(effectKey(request)).toBe('approve_phase#trg_1#ph_1');
});
