import { beforeEach, describe, expect, it } from 'vitest';
import { createSandbox, PERMISSION_KEYS, type Sandbox } from '../../src/sandbox/index.js';
import { call, NOW } from './helpers.js';

let sandbox: Sandbox;
beforeEach(() => {
  sandbox = createSandbox({ now: () => NOW, rateLimits: false });
});

describe('authentication and routing', () => {
  it('answers 401 with the platform error body without a key', async () => {
    const r = await call(sandbox, 'GET', '/console/v1/roles/admin', undefined, { key: null });
    expect(r.status).toBe(401);
    expect(r.json).toEqual({ status: 401, message: expect.any(String) });
  });

  it('answers 401 for a key that is not one of apiKeys', async () => {
    const r = await call(sandbox, 'GET', '/console/v1/roles/admin', undefined, { key: 'wrong' });
    expect(r.status).toBe(401);
    expect(r.text).not.toContain('wrong');
  });

  it('accepts any of several configured keys', async () => {
    const s = createSandbox({ apiKeys: ['old-key', 'new-key'], now: () => NOW });
    expect((await call(s, 'GET', '/console/v1/roles/admin', undefined, { key: 'new-key' })).status).toBe(200);
    expect((await call(s, 'GET', '/console/v1/roles/admin', undefined, { key: 'sandbox-key' })).status).toBe(
      401,
    );
  });

  it('answers 403 to a mutation with a read-only key, which may still read', async () => {
    const s = createSandbox({ readOnlyApiKeys: ['viewer'], now: () => NOW });
    const opts = { key: 'viewer' };
    expect((await call(s, 'GET', '/console/v1/roles/admin', undefined, opts)).status).toBe(200);
    const r = await call(
      s,
      'PUT',
      '/console/v1/release_pipeline_triggers/trg_1/approve',
      { phaseID: 'ph_1' },
      opts,
    );
    expect(r.status).toBe(403);
    expect(r.json).toEqual({ status: 403, message: expect.any(String) });
    expect(s.state.triggers.get('trg_1')?.currentPhaseID).toBe('ph_1');
  });

  it('answers unknown routes with a JSON 404, inside and outside the prefix', async () => {
    for (const path of ['/console/v1/nothing/here', '/elsewhere']) {
      const r = await call(sandbox, 'GET', path);
      expect(r.status).toBe(404);
      expect(r.json).toMatchObject({ status: 404, message: expect.any(String) });
    }
  });

  it('answers a body that is not JSON with a 400', async () => {
    const r = await call(sandbox, 'PATCH', '/console/v1/roles/admin', undefined, { raw: '{"permissions": ' });
    expect(r.status).toBe(400);
    expect(r.json.errors).toEqual([{ property: 'body', errorMessage: 'invalid JSON' }]);
  });

  it('does not log the API key with the request', async () => {
    await call(sandbox, 'GET', '/console/v1/roles/admin');
    expect(JSON.stringify(sandbox.requests)).not.toContain('sandbox-key');
  });
});

describe('roles', () => {
  it('reads a role with the 25 permission keys the spec shows', async () => {
    const r = await call(sandbox, 'GET', '/console/v1/roles/release_manager');
    expect(r.status).toBe(200);
    expect(r.json.message).toBe('Role read successfully.');
    expect(r.json.data.name).toBe('Release Manager');
    const keys = Object.keys(r.json.data.permissions);
    expect(keys).toHaveLength(25);
    expect(keys).not.toContain('bypass_precommit_webhook');
    expect(Object.values(r.json.data.permissions).every((v) => typeof v === 'boolean')).toBe(true);
  });

  it('updates permissions and keeps them', async () => {
    const r = await call(sandbox, 'PATCH', '/console/v1/roles/read_only', {
      permissions: { create_configs: true },
    });
    expect(r.status).toBe(200);
    expect(r.json.message).toBe('Role updated successfully.');
    expect(r.json.data.permissions.create_configs).toBe(true);
    const again = await call(sandbox, 'GET', '/console/v1/roles/read_only');
    expect(again.json.data.permissions.create_configs).toBe(true);
  });

  it('accepts every one of the 29 keys in an update', async () => {
    const permissions = Object.fromEntries(PERMISSION_KEYS.map((k) => [k, false]));
    const r = await call(sandbox, 'PATCH', '/console/v1/roles/admin', { permissions });
    expect(r.status).toBe(200);
    expect(sandbox.state.roles.get('admin')?.permissions.manual_whn_reload).toBe(false);
  });

  it('rejects unknown keys and non-boolean values, naming each field', async () => {
    const r = await call(sandbox, 'PATCH', '/console/v1/roles/admin', {
      permissions: { not_a_permission: true, create_configs: 'yes' },
    });
    expect(r.status).toBe(400);
    expect(r.json.status).toBe(400);
    const properties = r.json.errors.map((e: { property: string }) => e.property).sort();
    expect(properties).toEqual(['permissions.create_configs', 'permissions.not_a_permission']);
    expect(sandbox.state.roles.get('admin')?.permissions.create_configs).toBe(true);
  });

  it('rejects an update without permissions', async () => {
    const r = await call(sandbox, 'PATCH', '/console/v1/roles/admin', {});
    expect(r.status).toBe(400);
    expect(r.json.errors[0].property).toBe('permissions');
  });

  it('answers 404 for an unknown role', async () => {
    expect((await call(sandbox, 'GET', '/console/v1/roles/nobody')).status).toBe(404);
    expect((await call(sandbox, 'PATCH', '/console/v1/roles/nobody', { permissions: {} })).status).toBe(404);
  });

  it('decodes encoded path parameters and cannot be steered by them', async () => {
    const r = await call(sandbox, 'GET', `/console/v1/roles/${encodeURIComponent('../segments/employees')}`);
    expect(r.status).toBe(404);
  });
});

describe('dynamic configs', () => {
  const archive = '/console/v1/dynamic_configs/new_checkout_copy/archive';

  it('archives a config: archived, disabled, reason kept', async () => {
    const r = await call(sandbox, 'PUT', archive, { forceArchive: false, archiveReason: 'stale' });
    expect(r.status).toBe(200);
    expect(r.json.data).toMatchObject({
      id: 'new_checkout_copy',
      isEnabled: false,
      archived: true,
      archiveReason: 'stale',
    });
    expect(sandbox.state.configs.get('new_checkout_copy')?.archived).toBe(true);
  });

  it('answers 200 with the config unchanged when it is archived already', async () => {
    const first = await call(sandbox, 'PUT', archive, { forceArchive: false, archiveReason: 'stale' });
    const second = await call(sandbox, 'PUT', archive, { forceArchive: true, archiveReason: 'again' });
    expect(second.status).toBe(200);
    expect(second.json.data.version).toBe(first.json.data.version);
    expect(second.json.data.archiveReason).toBe('stale');
  });

  it('rejects a body without a boolean forceArchive and a string archiveReason', async () => {
    for (const body of [
      {},
      { forceArchive: 'no', archiveReason: 'x' },
      { forceArchive: false, archiveReason: 3 },
    ]) {
      const r = await call(sandbox, 'PUT', archive, body);
      expect(r.status).toBe(400);
      expect(r.json.errors.length).toBeGreaterThan(0);
    }
    expect(sandbox.state.configs.get('new_checkout_copy')?.archived).toBe(false);
  });

  it('needs forceArchive for a config in an active release pipeline', async () => {
    const trigger = sandbox.state.triggers.get('trg_1');
    const path = `/console/v1/dynamic_configs/${trigger?.dynamicConfigID}/archive`;
    const refused = await call(sandbox, 'PUT', path, { forceArchive: false, archiveReason: 'x' });
    expect(refused.status).toBe(400);
    expect(refused.json.errors[0].property).toBe('forceArchive');
    const forced = await call(sandbox, 'PUT', path, { forceArchive: true, archiveReason: 'x' });
    expect(forced.status).toBe(200);
  });

  it('answers 404 for an unknown config', async () => {
    const r = await call(sandbox, 'PUT', '/console/v1/dynamic_configs/nope/archive', {
      forceArchive: false,
      archiveReason: 'x',
    });
    expect(r.status).toBe(404);
  });
});

describe('segments', () => {
  it('reads an id_list and a rule_based segment', async () => {
    const idList = [...sandbox.state.segments.values()].find((s) => s.type === 'id_list');
    const ruleBased = [...sandbox.state.segments.values()].find((s) => s.type === 'rule_based');
    const a = await call(sandbox, 'GET', `/console/v1/segments/${idList?.id}`);
    expect(a.json.message).toBe('Segment read successfully.');
    expect(a.json.data.type).toBe('id_list');
    expect(a.json.data.rules).toBeUndefined();
    const b = await call(sandbox, 'GET', `/console/v1/segments/${ruleBased?.id}`);
    expect(b.json.data.type).toBe('rule_based');
    expect(b.json.data.rules.conditions.length).toBeGreaterThan(0);
  });

  it('answers 404 for an unknown segment', async () => {
    expect((await call(sandbox, 'GET', '/console/v1/segments/nope')).status).toBe(404);
  });
});

describe('experiments and metric sources', () => {
  const qualifying = '/console/v1/experiments/qualifying_events';
  const source = {
    name: 'orders_v2',
    sql: 'SELECT user_id, ts FROM orders',
    timestampColumn: 'ts',
    idTypeMapping: [{ serviceUnitID: 'userID', column: 'user_id' }],
  };

  it('creates a qualifying event that then appears in the metric source list', async () => {
    const r = await call(sandbox, 'POST', qualifying, { ...source, tags: ['orders'] });
    expect(r.status).toBe(200);
    expect(r.json.message).toBe('Qualifying event created successfully.');
    expect(r.json.data).toMatchObject({
      name: 'orders_v2',
      tags: ['orders'],
      sourceType: 'query',
      timestampAsDay: false,
    });
    expect(sandbox.state.metricSources.get('orders_v2')?.owner).toBeUndefined();
    const list = await call(sandbox, 'GET', '/console/v1/metrics/metric_source/list?limit=100');
    expect(list.json.data.map((s: { name: string }) => s.name)).toContain('orders_v2');
  });

  it('validates but does not keep a dry-run qualifying event', async () => {
    const r = await call(sandbox, 'POST', qualifying, { ...source, dryRun: true });
    expect(r.status).toBe(200);
    expect(sandbox.state.metricSources.has('orders_v2')).toBe(false);
    const bad = await call(sandbox, 'POST', qualifying, { name: 'x', dryRun: true });
    expect(bad.status).toBe(400);
  });

  it('names every missing required field of a qualifying event', async () => {
    const r = await call(sandbox, 'POST', qualifying, { description: 'no fields' });
    expect(r.status).toBe(400);
    const properties = r.json.errors.map((e: { property: string }) => e.property).sort();
    expect(properties).toEqual(['idTypeMapping', 'name', 'sql', 'timestampColumn']);
  });

  it('rejects a qualifying event whose name is taken', async () => {
    const r = await call(sandbox, 'POST', qualifying, { ...source, name: 'purchases' });
    expect(r.status).toBe(400);
    expect(r.json.errors[0].property).toBe('name');
  });

  it('disables experiment groups and bumps the version', async () => {
    const before = sandbox.state.experiments.get('checkout_redesign')?.version ?? 0;
    const r = await call(sandbox, 'POST', '/console/v1/experiments/checkout_redesign/disable_groups', {
      group_names: ['test'],
    });
    expect(r.status).toBe(200);
    const groups = r.json.data.groups as Array<{ name: string; disabled: boolean }>;
    expect(groups.find((g) => g.name === 'test')?.disabled).toBe(true);
    expect(groups.find((g) => g.name === 'control')?.disabled).toBe(false);
    expect(r.json.data.version).toBe(before + 1);
  });

  it('rejects an unknown group with a 400 and changes nothing', async () => {
    const r = await call(sandbox, 'POST', '/console/v1/experiments/checkout_redesign/disable_groups', {
      group_names: ['test', 'ghost'],
    });
    expect(r.status).toBe(400);
    expect(r.json.errors).toEqual([{ property: 'group_names[1]', errorMessage: 'unknown group ghost' }]);
    expect(sandbox.state.experiments.get('checkout_redesign')?.groups.every((g) => !g.disabled)).toBe(true);
  });

  it('rejects missing or empty group_names', async () => {
    for (const body of [{}, { group_names: [] }, { group_names: [''] }]) {
      const r = await call(sandbox, 'POST', '/console/v1/experiments/checkout_redesign/disable_groups', body);
      expect(r.status).toBe(400);
      expect(r.json.errors[0].property).toMatch(/^group_names/);
    }
  });

  it('answers 404 for an unknown experiment', async () => {
    const r = await call(sandbox, 'POST', '/console/v1/experiments/nope/disable_groups', {
      group_names: ['test'],
    });
    expect(r.status).toBe(404);
  });
});

describe('metrics', () => {
  const path = `/console/v1/metrics/${encodeURIComponent('revenue::sum')}`;

  it('updates a metric and keeps the change', async () => {
    const r = await call(sandbox, 'POST', path, {
      description: 'Gross revenue',
      directionality: 'decrease',
      owner: { email: 'grace@example.com', ownerID: 'usr_2' },
      warehouseNative: {
        valueColumn: 'amount',
        criteria: [{ column: 'c', values: ['a'], nullVacuousOverride: false }],
      },
    });
    expect(r.status).toBe(200);
    expect(r.json.message).toBe('Metric updated successfully.');
    expect(r.json.data).toMatchObject({
      id: 'revenue::sum',
      description: 'Gross revenue',
      directionality: 'decrease',
    });
    expect(sandbox.state.metrics.get('revenue::sum')?.description).toBe('Gross revenue');
  });

  it('answers a dry-run update without keeping it', async () => {
    const r = await call(sandbox, 'POST', path, { description: 'dry', dryRun: true });
    expect(r.json.data.description).toBe('dry');
    expect(sandbox.state.metrics.get('revenue::sum')?.description).not.toBe('dry');
  });

  it('rejects fields of the wrong type', async () => {
    const r = await call(sandbox, 'POST', path, {
      directionality: 'sideways',
      tags: 'x',
      warehouseNative: { cap: 'big' },
    });
    expect(r.status).toBe(400);
    const properties = r.json.errors.map((e: { property: string }) => e.property).sort();
    expect(properties).toEqual(['directionality', 'tags', 'warehouseNative.cap']);
  });

  it('answers 404 for an unknown metric', async () => {
    expect((await call(sandbox, 'POST', '/console/v1/metrics/nope%3A%3Asum', {})).status).toBe(404);
  });

  it('lists the metrics that use an event', async () => {
    const r = await call(sandbox, 'GET', '/console/v1/events/purchase/metrics?limit=50');
    expect(r.status).toBe(200);
    expect(r.json.message).toBe('Metrics listed successfully.');
    const ids = r.json.data.map((m: { id: string }) => m.id);
    expect(ids).toContain('revenue::sum');
    expect(ids.every((id: string) => /^[a-z_]+::[a-z_]+$/.test(id))).toBe(true);
    const none = await call(sandbox, 'GET', '/console/v1/events/never_logged/metrics');
    expect(none.json.data).toEqual([]);
    expect(none.json.pagination.totalItems).toBe(0);
  });
});

describe('events', () => {
  it('lists event records with string epoch-ms timestamps', async () => {
    const r = await call(sandbox, 'GET', '/console/v1/events');
    expect(r.status).toBe(200);
    expect(r.json.message).toBe('Event values listed successfully.');
    expect(r.json.data).toHaveLength(10);
    for (const e of r.json.data) {
      expect(e).toEqual({
        timestamp: expect.stringMatching(/^\d{13}$/),
        name: expect.any(String),
        source: expect.any(String),
        value: expect.any(String),
        userID: expect.any(String),
        metadata: expect.any(Object),
      });
    }
  });
});

describe('teams', () => {
  const team = {
    name: 'Payments',
    members: ['ada.lovelace@example.com', 'alan@example.com'],
    admins: ['ada.lovelace@example.com'],
    defaultGateMetrics: [],
    defaultExperimentPrimaryMetrics: [{ name: 'purchases', type: 'event_count' }],
    defaultExperimentSecondaryMetrics: [],
    defaultHoldoutMetrics: [],
    defaultTargetApplications: ['web'],
    changeTeamConfigs: 'team_only',
    reviewApproval: 'admin_only',
  };

  it('creates a team and answers members as objects', async () => {
    const r = await call(sandbox, 'POST', '/console/v1/users/teams', team);
    expect(r.status).toBe(200);
    expect(r.json.message).toBe('Team created successfully.');
    expect(r.json.data.members[0]).toEqual({
      email: 'ada.lovelace@example.com',
      firstName: 'Ada',
      lastName: 'Lovelace',
      role: 'admin',
    });
    expect(r.json.data.reviewApproval).toBe('admin_only');
    expect(sandbox.state.teams.has('Payments')).toBe(true);
  });

  it('names every missing required field', async () => {
    const r = await call(sandbox, 'POST', '/console/v1/users/teams', { name: 'X' });
    expect(r.status).toBe(400);
    const properties = r.json.errors.map((e: { property: string }) => e.property).sort();
    expect(properties).toEqual([
      'admins',
      'changeTeamConfigs',
      'defaultExperimentPrimaryMetrics',
      'defaultExperimentSecondaryMetrics',
      'defaultGateMetrics',
      'defaultHoldoutMetrics',
      'defaultTargetApplications',
      'members',
      'reviewApproval',
    ]);
  });

  it('rejects a duplicate team name and bad enum values', async () => {
    expect(
      (await call(sandbox, 'POST', '/console/v1/users/teams', { ...team, name: 'Checkout' })).status,
    ).toBe(400);
    const r = await call(sandbox, 'POST', '/console/v1/users/teams', {
      ...team,
      changeTeamConfigs: 'everyone',
    });
    expect(r.status).toBe(400);
    expect(r.json.errors[0].property).toBe('changeTeamConfigs');
  });
});

describe('request log', () => {
  it('records method, path, query, status, time and body of every request', async () => {
    await call(sandbox, 'GET', '/console/v1/segments?page=2&limit=5');
    await call(
      sandbox,
      'PUT',
      '/console/v1/release_pipeline_triggers/trg_1/approve',
      { phaseID: 'ph_1' },
      {
        key: 'bad',
      },
    );
    expect(sandbox.requests).toEqual([
      expect.objectContaining({
        method: 'GET',
        path: '/console/v1/segments',
        query: { page: '2', limit: '5' },
        status: 200,
        at: NOW,
      }),
      expect.objectContaining({ method: 'PUT', status: 401, body: { phaseID: 'ph_1' } }),
    ]);
  });

  it('logs the path as sent, still percent-encoded', async () => {
    await call(sandbox, 'GET', `/console/v1/roles/${encodeURIComponent('a b/c?d=e')}`);
    expect(sandbox.requests[0]?.path).toBe('/console/v1/roles/a%20b%2Fc%3Fd%3De');
    expect(sandbox.requests[0]?.status).toBe(404);
  });

  it('keeps at most requestLogLimit entries, dropping the oldest', async () => {
    const s = createSandbox({ now: () => NOW, requestLogLimit: 10 });
    for (let i = 1; i <= 25; i++) await call(s, 'GET', `/console/v1/segments?page=${i}`);
    expect(s.requests.length).toBeLessThanOrEqual(10);
    expect(s.requests.at(-1)?.query).toEqual({ page: '25' });
  });

  it('reset restores the seeded state and clears the log', async () => {
    await call(sandbox, 'PUT', '/console/v1/dynamic_configs/new_checkout_copy/archive', {
      forceArchive: false,
      archiveReason: 'x',
    });
    const configs = sandbox.state.configs;
    sandbox.reset();
    expect(sandbox.requests).toHaveLength(0);
    expect(configs.get('new_checkout_copy')?.archived).toBe(false);
    expect(sandbox.state.configs).toBe(configs);
  });
});
