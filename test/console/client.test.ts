import { beforeEach, describe, expect, it } from 'vitest';
import { RequestValidationError, ResponseValidationError } from '../../src/console/index.js';
import { newTeam, ok, SEGMENT, useScriptedServer } from './helpers/scripted-server.js';

const { server, client } = useScriptedServer();
beforeEach(() => {
  server.requests.length = 0;
  server.setScript(() => ok(SEGMENT));
});

describe('path parameters', () => {
  it.each([
    ['../roles/x', '/console/v1/roles/..%2Froles%2Fx'],
    ['a/b?c=d', '/console/v1/roles/a%2Fb%3Fc%3Dd'],
    ['x#frag', '/console/v1/roles/x%23frag'],
    ['ünï cødé', '/console/v1/roles/%C3%BCn%C3%AF%20c%C3%B8d%C3%A9'],
  ])('keeps %s one segment of the path', async (id, expected) => {
    server.setScript(() => ok({ name: 'r', permissions: {} }));
    await client().roles.get(id);
    expect(server.requests.map((r) => r.url)).toEqual([expected]);
  });

  it('encodes ids in every operation that has one', async () => {
    server.setScript((req) => {
      if (req.url.includes('/disable_groups')) return ok({ id: 'e' });
      if (req.url.includes('/approve')) return ok({ id: 't' });
      if (req.url.includes('/archive')) return ok({ id: 'c' });
      if (req.url.includes('/events/')) return ok([]);
      return ok({ id: 'm' });
    });
    const c = client();
    await c.experiments.disableGroups('../x', { group_names: ['test'] });
    await c.releasePipelineTriggers.approve('a/b', { phaseID: 'ph_1' });
    await c.dynamicConfigs.archive('?q', { forceArchive: false, archiveReason: 'r' });
    await c.metrics.update('m::sum/../x', { isVerified: true });
    expect(server.requests.map((r) => r.url)).toEqual([
      '/console/v1/experiments/..%2Fx/disable_groups',
      '/console/v1/release_pipeline_triggers/a%2Fb/approve',
      '/console/v1/dynamic_configs/%3Fq/archive',
      '/console/v1/metrics/m%3A%3Asum%2F..%2Fx',
    ]);
  });

  it('refuses ids that cannot be one segment (empty, . and ..) without a request', async () => {
    // WHATWG URL parsing collapses `..` even as %2E%2E, so these are refused, not encoded.
    await expect(client().segments.get('')).rejects.toBeInstanceOf(RequestValidationError);
    await expect(client().roles.get('..')).rejects.toBeInstanceOf(RequestValidationError);
    await expect(client().roles.update('.', { permissions: {} })).rejects.toBeInstanceOf(
      RequestValidationError,
    );
    // Half of a UTF-16 pair has no URL encoding: refused as the others, even by a list method
    // (which returns its promise rather than throwing).
    await expect(client().roles.get('a\uD800')).rejects.toBeInstanceOf(RequestValidationError);
    const list = () => client().metrics.listByEvent('a\uDC00b');
    expect(list).not.toThrow();
    await expect(list()).rejects.toBeInstanceOf(RequestValidationError);
    expect(
      await client()
        .roles.get('😀')
        .catch(() => 'sent'),
    ).toBe('sent'); // a whole pair is fine
    expect(server.requests.map((r) => r.url)).toEqual(['/console/v1/roles/%F0%9F%98%80']);
  });
});

describe('requests', () => {
  it('sends the key, JSON headers and the validated body', async () => {
    server.setScript(() => ok({ id: 'trg_1', currentPhaseID: 'ph_2' }));
    await client().releasePipelineTriggers.approve('trg_1', { phaseID: 'ph_1' });
    const [request] = server.requests;
    expect(request?.method).toBe('PUT');
    expect(request?.headers['service-api-key']).toBe('test-key');
    expect(request?.headers['content-type']).toBe('application/json');
    expect(JSON.parse(request?.body ?? '')).toEqual({ phaseID: 'ph_1' });
    expect(request?.headers['x-respect-review-settings']).toBeUndefined();
  });

  it('sends x-respect-review-settings on mutations when enabled, never on reads', async () => {
    server.setScript((req) => (req.method === 'GET' ? ok(SEGMENT) : ok({ id: 'trg_1' })));
    const c = client({ respectReviewSettings: true });
    await c.releasePipelineTriggers.approve('trg_1', { phaseID: 'ph_1' });
    await c.segments.get('seg_1');
    await c.releasePipelineTriggers.approve('trg_1', { phaseID: 'ph_1' }, { respectReviewSettings: false });
    expect(server.requests.map((r) => r.headers['x-respect-review-settings'])).toEqual([
      'true',
      undefined,
      undefined,
    ]);
  });

  it('appends /console/v1 to a base URL with a path prefix', async () => {
    await client({ baseUrl: `${server.url}/api/` }).segments.get('seg_1');
    expect(server.requests[0]?.url).toBe('/api/console/v1/segments/seg_1');
  });

  it('resolves single-object calls to the envelope data, keeping unknown fields', async () => {
    server.setScript(() => ok({ ...SEGMENT, brandNewField: { nested: 1 } }));
    const segment = await client().segments.get('seg_1');
    expect(segment).toMatchObject({ id: 'seg_1', type: 'id_list', brandNewField: { nested: 1 } });
  });
});

describe('request validation', () => {
  it.each([
    [
      'an unknown permission key',
      { permissions: { create_configs: true, make_coffee: true } },
      ['permissions'],
    ],
    [
      'a non-boolean permission',
      { permissions: { create_configs: 'yes' } },
      ['permissions', 'create_configs'],
    ],
    ['a field beside permissions', { permissions: {}, name: 'x' }, []],
  ])('refuses a role update with %s, naming the path, without a request', async (_, body, path) => {
    const error = await client()
      .roles.update('r1', body as never)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RequestValidationError);
    expect((error as RequestValidationError).issues[0]?.path).toEqual(path);
    expect(server.requests).toHaveLength(0);
  });

  it('accepts all 29 permission keys', async () => {
    server.setScript(() => ok({ name: 'r', permissions: { create_configs: true } }));
    const { PERMISSION_KEYS } = await import('../../src/console/index.js');
    const permissions = Object.fromEntries(PERMISSION_KEYS.map((k) => [k, true]));
    await client().roles.update('r1', { permissions });
    expect(PERMISSION_KEYS).toHaveLength(29);
    expect(Object.keys(JSON.parse(server.requests[0]?.body ?? '{}').permissions)).toHaveLength(29);
  });

  it('names the nested field of an invalid team', async () => {
    const error = await client()
      .teams.create(newTeam('Checkout', ['a@example.com', 'not-an-email'], []))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RequestValidationError);
    expect((error as RequestValidationError).path).toBe('members[1]');
    expect((error as Error).message).toContain('members[1]');
    expect(server.requests).toHaveLength(0);
  });

  it('refuses a qualifying event without its required fields and disable-groups without groups', async () => {
    const c = client();
    await expect(c.experiments.createQualifyingEvent({ name: 'x' } as never)).rejects.toThrow(/sql/);
    await expect(c.experiments.disableGroups('e', { group_names: [] })).rejects.toThrow(/group_names/);
    await expect(c.metrics.update('m', { warehouseNative: { cap: 'high' } } as never)).rejects.toThrow(
      /warehouseNative\.cap/,
    );
    await expect(c.segments.list({ limit: 0 })).rejects.toThrow(/limit/);
    expect(server.requests).toHaveLength(0);
  });
});

describe('response validation', () => {
  it('turns a response that breaks the schema into ResponseValidationError keeping the zod path', async () => {
    server.setScript(() => ok({ name: 'r', permissions: { create_configs: 'sometimes' } }));
    const error = await client()
      .roles.get('r1')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResponseValidationError);
    // JSON of another shape: the platform did answer (told apart from a body that is not JSON).
    expect((error as ResponseValidationError).kind).toBe('schema');
    expect((error as ResponseValidationError).issues[0]?.path).toEqual([
      'data',
      'permissions',
      'create_configs',
    ]);
    expect((error as Error).message).toContain('data.permissions.create_configs');
  });

  it('refuses a segment of an unknown type', async () => {
    server.setScript(() => ok({ ...SEGMENT, type: 'magic' }));
    await expect(client().segments.get('seg_1')).rejects.toBeInstanceOf(ResponseValidationError);
  });

  it.each([
    ['HTML', '<html><body>gateway</body></html>'],
    ['an empty body', ''],
    ['truncated JSON', '{"message": "ok", "data": {"id"'],
  ])(
    'survives a 200 with %s, told as not JSON by its content-type and size, never its text',
    async (_, body) => {
      server.setScript(() => ({ status: 200, body, headers: { 'content-type': 'text/html' } }));
      const error = await client()
        .segments.get('seg_1')
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ResponseValidationError);
      expect(error).toMatchObject({ kind: 'not-json', status: 200, contentType: 'text/html', issues: [] });
      expect((error as Error).message).toContain(
        `(status 200, content-type text/html, ${Buffer.byteLength(body)} bytes) is not JSON`,
      );
      if (body) expect((error as Error).message).not.toContain(body.slice(0, 12));
    },
  );
});
