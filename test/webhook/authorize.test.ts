import { describe, expect, it } from 'vitest';
import { createConsoleClient } from '../../src/console/index.js';
import { createSandbox } from '../../src/sandbox/index.js';
import type { PauseState } from '../../src/state/pause.js';
import { commandBody, signedRequest } from '../helpers/slack-requests.js';
import { buildApp, recordingSqs } from './harness.js';

const sandbox = createSandbox({ seed: 7 });
const console = createConsoleClient({
  baseUrl: 'http://sandbox.local',
  apiKey: 'sandbox-key',
  mutationBudget: false,
  fetch: async (input, init) => sandbox.app.fetch(new Request(input, init)),
});

function harness() {
  let pause: PauseState = { paused: false };
  const { sqs, sent } = recordingSqs();
  const built = buildApp({
    console,
    sqs,
    pause: {
      read: async () => pause,
      write: async (change) => {
        pause = { paused: change.paused, by: change.by };
      },
    },
  });
  return { ...built, sent };
}

const PEOPLE = {
  admin: { teamId: 'T0001', userId: 'U0ADMIN' },
  release: { teamId: 'T0001', userId: 'U0RELEASE' },
  ops: { teamId: 'T0001', userId: 'U0OPS' },
  member: { teamId: 'T0001', userId: 'U0MEMBER' },
  prototype: { teamId: 'T0001', userId: '__proto__' },
  outsider: { teamId: 'T0OTHER', userId: 'U0ADMIN' },
} as const;

const COMMANDS = {
  help: { text: 'help', grant: undefined },
  status: { text: 'status', grant: undefined },
  role: { text: 'role admin', grant: undefined },
  segment: { text: 'segment beta_testers', grant: undefined },
  segments: { text: 'segments 2', grant: undefined },
  metrics: { text: 'metrics purchase', grant: undefined },
  events: { text: 'events', grant: undefined },
  approve: { text: 'approve trg_1 ph_1', grant: 'approve_phase' },
  'disable-groups': { text: 'disable-groups checkout_redesign test', grant: 'disable_groups' },
  archive: { text: 'archive new_checkout_copy', grant: 'archive_config' },
  pause: { text: 'pause drill', grant: 'pause' },
  resume: { text: 'resume', grant: 'pause' },
} as const;

const GRANTS: Record<keyof typeof PEOPLE, string[]> = {
  admin: ['approve_phase', 'disable_groups', 'archive_config', 'pause'],
  release: ['approve_phase'],
  ops: ['pause'],
  member: [],
  prototype: [],
  outsider: [],
};

const cases = Object.entries(PEOPLE).flatMap(([who, identity]) =>
  Object.entries(COMMANDS).map(([name, spec]) => {
    const expected =
      who === 'outsider'
        ? 'team_refused'
        : spec.grant === undefined || GRANTS[who as keyof typeof PEOPLE].includes(spec.grant)
          ? 'allowed'
          : 'grant_missing';
    return { who, identity, name, text: spec.text, grant: spec.grant, expected };
  }),
);

describe('who may run what', () => {
  it.each(cases)('$who → $name: $expected', async ({ identity, name, text, grant, expected }) => {
    const { app, sent, requestLines } = harness();
    const res = await app.request(signedRequest('/slack/commands', commandBody({ text, ...identity })));
    expect(res.status).toBe(200);
    const reply = (await res.json()) as { text: string };
    const log = requestLines().at(-1)!;
    expect(log.command).toBe(name);
    if (expected === 'allowed') {
      expect(['team_refused', 'grant_missing']).not.toContain(log.outcome);
      expect(log.outcome).not.toBe('platform_error');
      if (['approve', 'disable-groups', 'archive'].includes(name)) expect(sent).toHaveLength(1);
    } else {
      expect(log.outcome).toBe(expected);
      expect(sent).toEqual([]);
      if (expected === 'grant_missing') expect(reply.text).toContain(`\`${grant}\` grant`);
      else expect(reply.text).toContain('workspace is not allowed');
    }
  });

  it('lists in help only what the caller may do', async () => {
    const { app } = harness();
    const helpFor = async (identity: { teamId: string; userId: string }) => {
      const res = await app.request(signedRequest('/slack/commands', commandBody({ text: '', ...identity })));
      return JSON.stringify(await res.json());
    };
    const member = await helpFor(PEOPLE.member);
    expect(member).toContain('/autopilot segments [page]');
    for (const usage of ['approve', 'disable-groups', 'archive', 'pause', 'resume']) {
      expect(member).not.toContain(`/autopilot ${usage}`);
    }
    const release = await helpFor(PEOPLE.release);
    expect(release).toContain('/autopilot approve &lt;triggerId&gt; &lt;phaseId&gt; [reason…]');
    expect(release).not.toContain('/autopilot archive');
    expect(release).not.toContain('/autopilot pause');
    const admin = await helpFor(PEOPLE.admin);
    for (const usage of ['approve', 'disable-groups', 'archive', 'pause', 'resume'])
      expect(admin).toContain(`/autopilot ${usage}`);
  });

  it('names the slash command as the workspace installed it', async () => {
    const { app } = harness();
    const res = await app.request(
      signedRequest('/slack/commands', commandBody({ text: 'segments', command: '/ops' })),
    );
    expect(JSON.stringify(await res.json())).toContain('`/ops segments 2` for more');
  });
});
