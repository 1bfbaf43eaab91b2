/** teams.create takes every valid e-mail address (zod's email() refused a punycode top-level domain). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConsoleClient } from '../../src/console/index.js';
import { ok, type ScriptedServer, startScriptedServer } from './helpers/scripted-server.js';

let server: ScriptedServer;
beforeAll(async () => {
  server = await startScriptedServer(() => ok({ name: 'Checkout' }, 'Team created successfully.'));
});
afterAll(() => server.close());

describe('teams.create e-mail addresses', () => {
  it('sends a team whose member has a valid punycode (IDN) address', async () => {
    const client = createConsoleClient({
      baseUrl: server.url,
      apiKey: 'test-key-123456',
      mutationBudget: false,
    });
    await expect(
      client.teams.create({
        name: 'Checkout',
        members: ['ivan@xn--e1afmkfd.xn--p1ai'],
        admins: ['ivan@xn--e1afmkfd.xn--p1ai'],
        defaultGateMetrics: [],
        defaultExperimentPrimaryMetrics: [],
        defaultExperimentSecondaryMetrics: [],
        defaultHoldoutMetrics: [],
        defaultTargetApplications: [],
        changeTeamConfigs: 'anyone',
        reviewApproval: 'anyone',
      }),
    ).resolves.toMatchObject({ name: 'Checkout' });
    expect(server.requests).toHaveLength(1);
  });
});
