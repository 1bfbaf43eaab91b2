/**
 * A stuck held wait past its expiry whose change WAS made: by its own last copy (approved just
 * before the expiry, the effect marked completed, then the copy died before writing its final), or
 * by another request for the same change. The release tick ends a stuck wait itself
 * (src/worker/stuck.ts); it must end it as the worker would end that copy: with the change's end
 * (its own, told as at first; another request's, told as "done by request X"), never "denied" by
 * `maxDeferHours` for a phase that was approved on the platform (the requester, the channel and a
 * CI gate's exit would say denied). The real worker on the emulators, the Console API sandbox, the
 * Slack stand-in, and the deployed tick (its stuck pass runs before its dead-copy pass).
 */
import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { outcomeNow, WAIT_EXIT } from '../../src/cli/wait.js';
import { parsePolicy } from '../../src/policy/parse.js';
import { MAX_RECEIVE_COUNT } from '../../src/queue/redrive.js';
import { readFinal } from '../../src/state/audit.js';
import { isStuck, listHeld } from '../../src/state/held.js';
import type { ReleaseSummary } from '../../src/worker/release.js';
import { releaseHeld } from '../../src/worker/release.js';
import { lambdaContext } from '../helpers/lambda.js';
import {
  basePolicy,
  benchResetEachTest,
  channelPostsAbout,
  copyTrigger,
  dyingAtCommand,
  onReceive,
} from './fixture.js';
import { releaseDeps } from './questions.js';
import { deployedTick, holdForWindow, holdStuck } from './stuck.js';

const bench = benchResetEachTest();

async function tickAt(iso: string): Promise<ReleaseSummary> {
  const tick = deployedTick(bench, parsePolicy(basePolicy(bench.slack.origin)));
  return (await tick({ time: iso }, lambdaContext({ timeoutMs: 60_000 }))) as ReleaseSummary;
}

const isFinalPut = (id: string) => (command: unknown) =>
  command instanceof PutItemCommand &&
  command.input.Item?.pk?.S === `audit#${id}` &&
  command.input.Item?.sk?.S === 'final';

describe('a stuck wait past its expiry whose change was made', () => {
  it('by its own last copy, which died before its final, is told approved, never denied', async () => {
    const id = 'sx-own';
    const triggerId = 'trg_sx_own';
    copyTrigger(bench, triggerId);
    // Held for a window since 10:00 on the 23rd: it expires at 2026-11-26T10:00:00Z.
    await holdForWindow(bench, id, { triggerId });
    const release = releaseDeps(bench);
    // Two sends never come back; the third is sent just before the expiry and reaches a worker.
    await releaseHeld(release, new Date('2026-11-26T09:20:00Z'));
    await bench.purge();
    await releaseHeld(release, new Date('2026-11-26T09:40:00Z'));
    await bench.purge();
    expect((await releaseHeld(release, new Date('2026-11-26T09:59:00Z'))).released).toEqual([id]);
    expect(isStuck((await listHeld(bench.table)).find((h) => h.requestId === id)!)).toBe(true);

    // 09:59:50, office hours, before the expiry: approved; the call makes the change, the effect is
    // marked completed, and the copy dies (its last receive) as it puts its final.
    bench.clock.now = new Date('2026-11-26T09:59:50Z');
    const before = bench.slack.posts.length;
    const copy = await bench.receive();
    expect(copy.Records).toHaveLength(1);
    const dying = dyingAtCommand(bench, isFinalPut(id));
    void bench.run(bench.worker({ table: dying.table }), onReceive(copy, MAX_RECEIVE_COUNT));
    await dying.died;
    expect(bench.approvals(triggerId)).toBe(1);

    // A tick after the expiry, its dead copy not yet past its deadline; then one past it.
    await tickAt('2026-11-26T10:00:05Z');
    await tickAt('2026-11-26T10:05:00Z');

    const told = channelPostsAbout(bench, id, before);
    expect(told.join('\n')).not.toContain('Denied');
    expect(told).toHaveLength(1);
    expect(told[0]).toContain('Done');
    expect(await readFinal(bench.table, id)).toMatchObject({ result: 'approved', requestId: id });
    expect(await outcomeNow(bench.table, id)).toMatchObject({ exitCode: WAIT_EXIT.done, result: 'approved' });
    expect((await listHeld(bench.table)).map((h) => h.requestId)).not.toContain(id);
    expect(bench.approvals(triggerId)).toBe(1);
  });

  it('by another request is told "done by" that request, as the worker replays it, never denied', async () => {
    const id = 'sx-other';
    const other = 'sx-made-it';
    const triggerId = 'trg_sx_other';
    copyTrigger(bench, triggerId);
    await holdStuck(bench, id, { triggerId });
    // Another request for the same phase is approved and made (10:40 on the 23rd, office hours).
    bench.clock.now = new Date('2026-11-23T10:40:00Z');
    await bench.send({ triggerId, phaseId: 'ph_1', requestId: other });
    const made = await bench.receive();
    expect(made.Records).toHaveLength(1);
    expect((await bench.run(bench.worker(), made)).batchItemFailures).toEqual([]);
    expect(bench.approvals(triggerId)).toBe(1);
    expect((await readFinal(bench.table, other))?.result).toBe('approved');

    const before = bench.slack.posts.length;
    await tickAt('2026-11-26T10:00:30Z');

    expect(channelPostsAbout(bench, id, before).join('\n')).not.toContain('Denied');
    const final = await readFinal(bench.table, id);
    expect(final).toMatchObject({ result: 'approved', requestId: id });
    expect(final?.reason).toContain(other);
    expect(await outcomeNow(bench.table, id)).toMatchObject({ exitCode: WAIT_EXIT.done, result: 'approved' });
    expect((await listHeld(bench.table)).map((h) => h.requestId)).not.toContain(id);
    expect(bench.approvals(triggerId)).toBe(1);
  });
});
