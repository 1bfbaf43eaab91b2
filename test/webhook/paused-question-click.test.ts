/**
 * A held question can be held again by a pause: SQS delivers the message that asked it once more
 * (the asking copy's process died after its post, a batch item reported failed, a visibility
 * timeout run out) while automation is paused, and the pause comes first in the policy, so the
 * worker writes the wait anew as `paused`. A click on the question's buttons was then refused as
 * "no longer open (answered, cancelled or expired)": none of which was so, and the person had no
 * way to know the question comes back with `resume`. The click is now refused with the true reason:
 * automation is paused, the question is held until it is resumed, and its buttons count again then.
 * The real worker and webhook on the emulators, the redelivery a second run of the same event.
 */
import { describe, expect, it } from 'vitest';
import { readHeld } from '../../src/state/held.js';
import { writePause } from '../../src/state/pause.js';
import { APPROVE_ACTION_ID, DENY_ACTION_ID } from '../../src/webhook/interactions.js';
import { releaseHeld } from '../../src/worker/release.js';
import { benchResetEachTest, onReceive } from '../worker/fixture.js';
import {
  clickAt,
  questionsAbout,
  questionValue,
  releaseDeps,
  repliesAt,
  sendAskingRequest,
} from '../worker/questions.js';

const bench = benchResetEachTest();

describe('a click on a question held again by a pause', () => {
  it('is refused because automation is paused, not as answered, cancelled or expired; after resume it counts', async () => {
    const before = bench.slack.posts.length;
    await sendAskingRequest(bench, 'trg_pq1', 'pq-asked-1');
    const event = await bench.receive();
    await bench.run(bench.worker(), onReceive(event, 1));
    expect((await readHeld(bench.table, 'pq-asked-1'))?.why).toBe('ask');
    const value = questionValue(bench, 'pq-asked-1');

    // Paused; then SQS delivers the asking message again: the worker holds the question by the pause.
    await writePause(bench.table, { paused: true, by: 'slack:U0OPS', at: new Date('2026-11-23T10:05:00Z') });
    bench.clock.now = new Date('2026-11-23T10:10:00Z');
    await bench.run(bench.worker(), onReceive(event, 2));
    expect((await readHeld(bench.table, 'pq-asked-1'))?.why).toBe('paused');

    const at = Date.parse('2026-11-23T10:15:00Z');
    for (const [actionId, path] of [
      [APPROVE_ACTION_ID, '/actions/T0001/pq/approve'],
      [DENY_ACTION_ID, '/actions/T0001/pq/deny'],
    ] as const) {
      expect(await clickAt(bench, actionId, value, at, path)).toBe('question_paused');
      const reply = repliesAt(bench, path);
      expect(reply).not.toContain('answered, cancelled');
      expect(reply).toContain('paused');
      expect(reply).toContain('resume');
    }
    expect(bench.approvals('trg_pq1')).toBe(0);

    // Resumed: the tick sends it back, the worker asks no second time, and the same buttons count.
    await writePause(bench.table, { paused: false, by: 'slack:U0OPS', at: new Date('2026-11-23T10:20:00Z') });
    bench.clock.now = new Date('2026-11-23T10:21:00Z');
    expect((await releaseHeld(releaseDeps(bench), bench.clock.now)).released).toContain('pq-asked-1');
    await bench.run(bench.worker(), await bench.receive());
    expect((await readHeld(bench.table, 'pq-asked-1'))?.why).toBe('ask');
    expect(questionsAbout(bench, 'pq-asked-1', before)).toHaveLength(1);
    const later = Date.parse('2026-11-23T10:22:00Z');
    expect(await clickAt(bench, APPROVE_ACTION_ID, value, later, '/actions/T0001/pq/again')).toBe('queued');
  });
});
