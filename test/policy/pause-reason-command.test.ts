/**
 * The pause reason told every held request's requester (and the channel) "held until
 * `/autopilot resume`", while the Slack app may have been set up with another slash command
 * (`npm run slack:manifest -- --command /ops`): they were told to type a command that does not
 * exist in their workspace. The worker cannot know the command's name (Slack sends it to the
 * webhook per request; the stack sets no variable for it), so the reason names none.
 */
import { expect, it } from 'vitest';
import { decide } from '../../src/policy/decide.js';
import { approveRequest, MONDAY_0930, testPolicy } from './fixtures.js';

it('tells how a pause ends without naming a slash command the app may not have', () => {
  const decision = decide(testPolicy, {
    request: approveRequest(),
    now: new Date(MONDAY_0930),
    pause: { paused: true, by: 'U0ADMIN', reason: 'incident 42' },
  });
  expect(decision.rule).toBe('pause');
  expect(decision.reason).not.toContain('/autopilot');
  expect(decision.reason).toContain('until someone resumes automation (`resume`)');
});
