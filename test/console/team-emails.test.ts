/** teams.create takes every valid e-mail address (zod's email() refused a punycode top-level domain). */
import { describe, expect, it } from 'vitest';
import { createConsoleClient } from '../../src/console/index.js';
import { newTeam, ok, useScriptedServer } from './helpers/scripted-server.js';

const { server } = useScriptedServer(() => ok({ name: 'Checkout' }, 'Team created successfully.'));

describe('teams.create e-mail addresses', () => {
  it('sends a team whose member has a valid punycode (IDN) address', async () => {
    const client = createConsoleClient({
      baseUrl: server.url,
      apiKey: 'test-key-123456',
      mutationBudget: false,
    });
    await expect(
      client.teams.create(
        newTeam('Checkout', ['ivan@xn--e1afmkfd.xn--p1ai'], ['ivan@xn--e1afmkfd.xn--p1ai']),
      ),
    ).resolves.toMatchObject({ name: 'Checkout' });
    expect(server.requests).toHaveLength(1);
  });
});
