/**
 * `/autopilot status` showed when automation was paused as the stored ISO stamp ("since
 * 2026-11-27T14:14:40.293Z"), while the worker's replies about the same pause say "since Fri
 * 27 Nov 15:14 CET" (the policy's time zone). status now says it the worker's way, in the
 * policy's zone, so a release manager reads one time for one pause.
 *
 * The real webhook, driven with a signed Slack request at a pinned time; the worker's words come
 * from the policy's own decision for a request during that pause.
 */
import { describe, expect, it } from 'vitest';
import { decide } from '../../src/policy/decide.js';
import type { PauseState } from '../../src/state/pause.js';
import { commandBody, signedRequest } from '../helpers/slack-requests.js';
import { buildApp, testPolicy } from './harness.js';

const AT = Date.parse('2026-11-27T16:00:00Z');

async function statusWith(pause: PauseState): Promise<string> {
  const { app } = buildApp({
    now: () => AT,
    pause: {
      read: async () => pause,
      write: async () => {
        throw new Error('status writes nothing');
      },
    },
  });
  const res = await app.request(
    signedRequest('/slack/commands', commandBody({ text: 'status', userId: 'U0READER' }), {
      timestamp: Math.floor(AT / 1000),
    }),
  );
  expect(res.status).toBe(200);
  const reply = (await res.json()) as { blocks: Array<{ text?: { text?: string } }> };
  return reply.blocks.map((b) => b.text?.text ?? '').find((t) => t.includes('*Paused*')) ?? '';
}

describe('status: when automation was paused', () => {
  it("says it as the worker's replies do, in the policy's time zone", async () => {
    const pause = {
      paused: true,
      by: 'slack:U0OPS',
      since: '2026-11-27T14:14:40.293Z',
      reason: 'incident 4711',
    };
    const shown = await statusWith(pause);
    expect(shown).toBe(
      ':double_vertical_bar: *Paused* by slack:U0OPS since Fri 27 Nov 15:14 CET: incident 4711',
    );

    // The worker's reason for a request held by the same pause names the same time.
    const decision = decide(testPolicy(), {
      request: {
        version: 1,
        action: 'approve_phase',
        triggerId: 'trg_1',
        phaseId: 'ph_1',
        requestedBy: { source: 'ci', id: 'deploy.yml' },
        requestedAt: new Date(AT).toISOString(),
      },
      now: new Date(AT),
      pause,
    });
    expect(decision.rule).toBe('pause');
    expect(decision.reason).toContain('since Fri 27 Nov 15:14 CET');
  });

  it('names the year of a pause from another year', async () => {
    const shown = await statusWith({ paused: true, by: 'slack:U0OPS', since: '2025-11-27T14:14:40Z' });
    expect(shown).toBe(':double_vertical_bar: *Paused* by slack:U0OPS since Thu 27 Nov 2025 15:14 CET');
  });

  it('shows a stored time it cannot read as it is, escaped', async () => {
    const shown = await statusWith({ paused: true, since: 'yesterday <!channel>' });
    expect(shown).toBe(':double_vertical_bar: *Paused* since yesterday &lt;!channel&gt;');
  });
});
