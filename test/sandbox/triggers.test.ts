import { beforeEach, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { call, NOW } from './helpers.js';

let sandbox: Sandbox;
let clock = NOW;
beforeEach(() => {
  clock = NOW;
  sandbox = createSandbox({ now: () => clock, rateLimits: false });
});

const approve = (id: string, phaseID: unknown) =>
  call(sandbox, 'PUT', `/console/v1/release_pipeline_triggers/${id}/approve`, { phaseID });

describe('seeded release pipeline triggers', () => {
  it('holds trg_1..trg_12 with phases ph_1..ph_4 and the spec fields', () => {
    expect([...sandbox.state.triggers.keys()]).toEqual(Array.from({ length: 12 }, (_, i) => `trg_${i + 1}`));
    for (const t of sandbox.state.triggers.values()) {
      expect(t.phases.map((p) => p.id)).toEqual(['ph_1', 'ph_2', 'ph_3', 'ph_4']);
      expect(t.phases.map((p) => p.name)).toEqual(['canary', 'ramp_25', 'ramp_50', 'full']);
      for (const key of [
        'releasePipelineID',
        'creatorID',
        'status',
        'currentPhase',
        'gateID',
        'dynamicConfigID',
      ]) {
        expect(typeof (t as unknown as Record<string, unknown>)[key]).toBe('string');
      }
      // One action per phase already approved.
      const index = t.phases.findIndex((p) => p.id === t.currentPhaseID);
      expect(t.actions).toHaveLength(index === -1 ? 4 : index);
    }
    expect(sandbox.state.triggers.get('trg_1')?.currentPhaseID).toBe('ph_1');
    expect(sandbox.state.triggers.get('trg_12')?.status).toBe('completed');
  });
});

describe('approving a trigger phase', () => {
  it('advances the current phase and appends an action', async () => {
    clock = NOW + 5000;
    const r = await approve('trg_1', 'ph_1');
    expect(r.status).toBe(200);
    expect(r.json.data).toMatchObject({ id: 'trg_1', currentPhaseID: 'ph_2', currentPhase: 'ramp_25' });
    expect(r.json.data.phases).toBeUndefined();
    expect(r.json.data.actions.at(-1)).toEqual({
      timeMs: NOW + 5000,
      phaseID: 'ph_1',
      actorName: expect.any(String),
      actorID: expect.any(String),
    });
    expect(sandbox.state.triggers.get('trg_1')?.currentPhaseID).toBe('ph_2');
  });

  it('rejects a phase that is not current with a 400 that says so, and changes nothing', async () => {
    const r = await approve('trg_5', 'ph_1');
    expect(r.status).toBe(400);
    expect(r.json.message).toMatch(/not the current phase/);
    expect(r.json.errors[0].property).toBe('phaseID');
    expect(sandbox.state.triggers.get('trg_5')?.actions).toHaveLength(1);
  });

  it('rejects a repeated approval of the same phase as stale', async () => {
    expect((await approve('trg_2', 'ph_1')).status).toBe(200);
    const again = await approve('trg_2', 'ph_1');
    expect(again.status).toBe(400);
    expect(again.json.message).toMatch(/not the current phase/);
  });

  it('walks every phase and then marks the trigger completed', async () => {
    for (const phase of ['ph_1', 'ph_2', 'ph_3', 'ph_4'])
      expect((await approve('trg_3', phase)).status).toBe(200);
    const t = sandbox.state.triggers.get('trg_3');
    expect(t).toMatchObject({ status: 'completed', currentPhaseID: '', currentPhase: '' });
    expect(t?.actions.map((a) => a.phaseID)).toEqual(['ph_1', 'ph_2', 'ph_3', 'ph_4']);
    const after = await approve('trg_3', 'ph_4');
    expect(after.status).toBe(400);
    expect(after.json.message).toMatch(/not the current phase/);
  });

  it('rejects a missing or empty phaseID and answers 404 for an unknown trigger', async () => {
    expect((await approve('trg_1', undefined)).status).toBe(400);
    expect((await approve('trg_1', '')).status).toBe(400);
    expect((await approve('trg_99', 'ph_1')).status).toBe(404);
  });
});
