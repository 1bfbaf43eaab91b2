/**
 * Spec 2.6: a segment condition's fields (`type`, `operator`, `targetValue`, `field`, `customID`)
 * are none of them required; a condition without `targetValue` (the platform's `{"type": "public"}`)
 * is read, by `segments.get` and on every `segments.list` page. (The sandbox always sends one.)
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createConsoleClient } from '../../src/console/index.js';
import { ok, page, type ScriptedServer, startScriptedServer } from './helpers/scripted-server.js';

let server: ScriptedServer;
beforeAll(async () => {
  server = await startScriptedServer();
});
afterAll(() => server.close());
beforeEach(() => {
  server.requests.length = 0;
});

const client = () =>
  createConsoleClient({ baseUrl: server.url, apiKey: 'review-key', maxRetries: 0, mutationBudget: false });

/** A rule_based segment exactly as spec 2.6 allows it: a condition without `targetValue`. */
const RULE_BASED = {
  id: 'seg_rules',
  isEnabled: true,
  description: 'everyone in the rollout',
  lastModifierName: 'Ada',
  lastModifierID: 'u1',
  type: 'rule_based',
  count: 0,
  tags: [],
  rules: {
    name: 'Everyone',
    passPercentage: 100,
    conditions: [{ type: 'public', operator: 'any', field: '', customID: '' }],
    returnValue: {},
  },
};

describe('spec 2.6: a segment condition whose targetValue is absent', () => {
  it('is accepted by segments.get', async () => {
    server.setScript(() => ok(RULE_BASED, 'Segment read successfully.'));
    const segment = await client().segments.get('seg_rules');
    expect(segment.type).toBe('rule_based');
  });

  it('does not break a segments.list page', async () => {
    server.setScript(() =>
      page([{ id: 'seg_ids', type: 'id_list', isEnabled: true, count: 2, tags: [] }, RULE_BASED], null),
    );
    const first = await client().segments.list();
    expect(first.data.map((s) => s.id)).toEqual(['seg_ids', 'seg_rules']);
  });
});
