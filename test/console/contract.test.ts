/**
 * Contract tests: the client against the sandbox over real HTTP on loopback, one per
 * operation, plus error mapping of the sandbox's real 400/401/404/429 answers. The sandbox
 * is an independent reading of the spec, so a disagreement shows up here.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  ApiTimeoutError,
  AuthenticationError,
  BadRequestError,
  type ConsoleClientOptions,
  createConsoleClient,
  InternalServerError,
  NotFoundError,
  RateLimitError,
  ResponseValidationError,
} from '../../src/console/index.js';
import { PERMISSION_KEYS } from '../../src/console/schemas/roles.js';
import {
  type RunningSandbox,
  PERMISSION_KEYS as SANDBOX_PERMISSION_KEYS,
  startSandbox,
} from '../../src/sandbox/index.js';

let running: RunningSandbox;
beforeAll(async () => {
  running = await startSandbox({ rateLimits: false });
});
afterAll(() => running.close());
beforeEach(() => running.sandbox.reset());

const client = (extra: Partial<ConsoleClientOptions> = {}) =>
  createConsoleClient({ baseUrl: running.url, apiKey: 'sandbox-key', mutationBudget: false, ...extra });

async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of iterable) out.push(item);
  return out;
}

const state = () => running.sandbox.state;

describe('the two readings of the spec agree', () => {
  // Each side keeps its own transcription of spec 2.3 (a shared list would hide a typo from
  // both): a role update the client accepts must be one the sandbox accepts, and no key fewer.
  it('lists the same 29 permission keys in the same order', () => {
    expect(PERMISSION_KEYS).toHaveLength(29);
    expect([...PERMISSION_KEYS]).toEqual([...SANDBOX_PERMISSION_KEYS]);
  });
});

describe('each operation against the sandbox', () => {
  it('roles.get reads a role with its permissions', async () => {
    const role = await client().roles.get('admin');
    expect(role.name).toBe('Admin');
    expect(Object.keys(role.permissions ?? {}).length).toBeGreaterThanOrEqual(25);
    expect(Object.values(role.permissions ?? {}).every((v) => typeof v === 'boolean')).toBe(true);
  });

  it('roles.update changes the given permissions only', async () => {
    const before = await client().roles.get('read_only');
    const role = await client().roles.update('read_only', { permissions: { create_configs: true } });
    expect(role.permissions?.create_configs).toBe(true);
    expect(role.permissions?.use_metrics_explorer).toBe(before.permissions?.use_metrics_explorer);
    expect(running.sandbox.requests.at(-1)).toMatchObject({ method: 'PATCH', status: 200 });
  });

  it('dynamicConfigs.archive archives a config, keeping unknown response fields', async () => {
    const config = await client().dynamicConfigs.archive('new_checkout_copy', {
      forceArchive: false,
      archiveReason: 'no exposure in 60 days',
    });
    expect(config.id).toBe('new_checkout_copy');
    expect(config.isEnabled).toBe(false);
    expect(config.archived).toBe(true);
    expect(state().configs.get('new_checkout_copy')?.archived).toBe(true);
  });

  it('segments.get reads both segment forms', async () => {
    const all = [...state().segments.values()];
    const idList = all.find((s) => s.type === 'id_list');
    const ruleBased = all.find((s) => s.type === 'rule_based');
    const a = await client().segments.get(idList?.id ?? '');
    const b = await client().segments.get(ruleBased?.id ?? '');
    expect(a.type).toBe('id_list');
    expect(b.type).toBe('rule_based');
    if (b.type === 'rule_based') expect(b.rules.conditions?.length).toBeGreaterThan(0);
  });

  it('segments.list pages (default 10) and iterates every segment', async () => {
    const first = await client().segments.list();
    expect(first.data).toHaveLength(10);
    expect(first.pagination).toMatchObject({
      pageNumber: 1,
      itemsPerPage: 10,
      totalItems: state().segments.size,
    });
    const ids = (await collect(client().segments.list({ limit: 7 }))).map((s) => s.id);
    expect(ids).toEqual([...state().segments.keys()]);
    expect(state().segments.size).toBeGreaterThanOrEqual(30);
  });

  it('experiments.createQualifyingEvent creates a metric source (and only validates on dryRun)', async () => {
    const body = {
      name: 'contract_source',
      sql: 'select user_id, ts from t',
      timestampColumn: 'ts',
      idTypeMapping: [{ serviceUnitID: 'userID', column: 'user_id' }],
    };
    const dry = await client().experiments.createQualifyingEvent({
      ...body,
      name: 'dry_source',
      dryRun: true,
    });
    expect(dry.name).toBe('dry_source');
    expect(state().metricSources.has('dry_source')).toBe(false);
    const created = await client().experiments.createQualifyingEvent(body);
    expect(created).toMatchObject({ name: 'contract_source', timestampColumn: 'ts' });
    expect(state().metricSources.has('contract_source')).toBe(true);
  });

  it('experiments.disableGroups disables the named groups', async () => {
    const experiment = await client().experiments.disableGroups('checkout_redesign', {
      group_names: ['test'],
    });
    expect(experiment.groups?.find((g) => g.name === 'test')?.disabled).toBe(true);
    expect(experiment.groups?.find((g) => g.name === 'control')?.disabled).toBe(false);
  });

  it('metricSources.list iterates every metric source', async () => {
    const names = (await collect(client().metricSources.list())).map((s) => s.name);
    expect(names).toEqual([...state().metricSources.keys()]);
    expect(names.length).toBeGreaterThanOrEqual(25);
  });

  it('metrics.update updates a metric, warehouseNative included', async () => {
    const id = [...state().metrics.keys()][0] as string;
    const metric = await client().metrics.update(id, {
      isVerified: true,
      tags: ['contract'],
      warehouseNative: {
        metricSourceName: 'orders',
        criteria: [{ column: 'country', values: ['DE'], nullVacuousOverride: false }],
        cap: 10,
      },
    });
    expect(metric).toMatchObject({ id, isVerified: true, tags: ['contract'] });
  });

  it('metrics.listByEvent lists the metrics using an event', async () => {
    const metrics = await collect(client().metrics.listByEvent('purchase'));
    const expected = [...state().metrics.values()].filter((m) => m.lineage.events.includes('purchase'));
    expect(metrics.map((m) => m.id).sort()).toEqual(expected.map((m) => m.id).sort());
    expect(metrics.length).toBeGreaterThan(0);
  });

  it('events.list iterates all 2,000 seeded events', async () => {
    const events = await collect(client().events.list({ limit: 250 }));
    expect(events).toHaveLength(2000);
    expect(events.some((e) => e.name === 'config_exposure')).toBe(true);
    expect(events.every((e) => /^\d+$/.test(e.timestamp))).toBe(true);
  });

  it('releasePipelineTriggers.approve approves the current phase and advances the trigger', async () => {
    const current = state().triggers.get('trg_1')?.currentPhaseID as string;
    const trigger = await client().releasePipelineTriggers.approve('trg_1', { phaseID: current });
    expect(trigger.actions?.at(-1)?.phaseID).toBe(current);
    expect(trigger.currentPhaseID).not.toBe(current);
  });

  it('teams.create creates a team; members come back as objects', async () => {
    const team = await client().teams.create({
      name: 'Contract Team',
      members: ['ada.lovelace@example.com'],
      admins: ['ada.lovelace@example.com'],
      defaultGateMetrics: [],
      defaultExperimentPrimaryMetrics: [{ name: 'purchases', type: 'event_count' }],
      defaultExperimentSecondaryMetrics: [],
      defaultHoldoutMetrics: [],
      defaultTargetApplications: ['web'],
      changeTeamConfigs: 'team_only',
      reviewApproval: 'admin_only',
    });
    expect(team.name).toBe('Contract Team');
    expect(team.members?.[0]).toMatchObject({ email: 'ada.lovelace@example.com' });
  });

  it('sends x-respect-review-settings on mutations when asked', async () => {
    const current = state().triggers.get('trg_2')?.currentPhaseID as string;
    await client({ respectReviewSettings: true }).releasePipelineTriggers.approve('trg_2', {
      phaseID: current,
    });
    expect(running.sandbox.requests.at(-1)?.headers['x-respect-review-settings']).toBe('true');
  });
});

describe('error mapping against the sandbox', () => {
  it('maps approving a phase that is not current to BadRequestError with errors[]', async () => {
    const current = state().triggers.get('trg_3')?.currentPhaseID as string;
    await client().releasePipelineTriggers.approve('trg_3', { phaseID: current });
    const error = await client()
      .releasePipelineTriggers.approve('trg_3', { phaseID: current })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BadRequestError);
    expect((error as BadRequestError).errors?.[0]?.property).toBe('phaseID');
  });

  it('maps disabling an unknown group to BadRequestError naming the field', async () => {
    const error = await client()
      .experiments.disableGroups('checkout_redesign', { group_names: ['no_such_group'] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BadRequestError);
    expect((error as BadRequestError).errors?.[0]?.property).toBe('group_names[0]');
  });

  it('maps a wrong key to AuthenticationError without the key in it', async () => {
    const error = await client({ apiKey: 'wrong-key-ocelot' })
      .segments.get('x')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(JSON.stringify(error)).not.toContain('ocelot');
  });

  it('maps unknown ids to NotFoundError, for odd ids too', async () => {
    for (const id of ['no_such_segment', '../segments', 'a/b?c=d']) {
      await expect(client().segments.get(id)).rejects.toBeInstanceOf(NotFoundError);
    }
    expect(running.sandbox.requests.map((r) => r.path)).toEqual([
      '/console/v1/segments/no_such_segment',
      '/console/v1/segments/..%2Fsegments',
      '/console/v1/segments/a%2Fb%3Fc%3Dd',
    ]);
  });

  it('maps the platform limit to RateLimitError with retryAfterMs', async () => {
    const limited = await startSandbox({ rateLimits: { limits: [{ max: 1, perMs: 60_000 }] } });
    try {
      const c = createConsoleClient({
        baseUrl: limited.url,
        apiKey: 'sandbox-key',
        mutationBudget: false,
        maxRetries: 0,
      });
      await c.roles.update('admin', { permissions: { create_configs: true } });
      const error = await c.roles
        .update('admin', { permissions: { create_configs: true } })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RateLimitError);
      expect((error as RateLimitError).retryAfterMs).toBeGreaterThan(0);
    } finally {
      await limited.close();
    }
  });
});

describe('resilience against the sandbox', () => {
  it('makes a backlog wait for the budget instead of earning 429s', async () => {
    const limits = [{ max: 4, perMs: 500 }];
    const limited = await startSandbox({ rateLimits: { limits } });
    try {
      const c = createConsoleClient({
        baseUrl: limited.url,
        apiKey: 'sandbox-key',
        mutationBudget: { limits },
      });
      const results = await Promise.all(
        Array.from({ length: 10 }, () => c.roles.update('member', { permissions: { manage_alerts: true } })),
      );
      expect(results).toHaveLength(10);
      expect(limited.sandbox.requests.map((r) => r.status)).toEqual(Array(10).fill(200));
    } finally {
      await limited.close();
    }
  });

  it('iterates every event through injected 5xx and 429 faults by retrying', async () => {
    running.sandbox.setFaults({ errorRate: 0.15, rateLimitRate: 0.15, retryAfterSeconds: 0, only: 'reads' });
    const c = client({ maxRetries: 8, sleep: async () => undefined });
    const events = await collect(c.events.list({ limit: 100 }));
    expect(events).toHaveLength(2000);
    expect(running.sandbox.requests.some((r) => r.status >= 429)).toBe(true);
  });

  it('survives malformed bodies: a 200 is a ResponseValidationError of kind not-json (no answer of the platform), a 500 an InternalServerError', async () => {
    running.sandbox.setFaults({ malformedRate: 1, malformedStatus: 200, malformedKind: 'html' });
    const error = await client({ maxRetries: 0 })
      .segments.get('x')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect(error).toMatchObject({ kind: 'not-json', status: 200, contentType: 'text/html' });
    expect((error as Error).message).not.toContain('Bad Gateway');
    running.sandbox.setFaults({ malformedStatus: 500, malformedKind: 'invalid-json' });
    await expect(client({ maxRetries: 0 }).segments.get('x')).rejects.toBeInstanceOf(InternalServerError);
  });

  it('ends a hung request with ApiTimeoutError', async () => {
    running.sandbox.setFaults({ hangRate: 1 });
    await expect(client({ timeoutMs: 150, maxRetries: 0 }).segments.get('x')).rejects.toBeInstanceOf(
      ApiTimeoutError,
    );
  });
});
