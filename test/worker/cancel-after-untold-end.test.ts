/**
 * A cancel after a held request's own end was written but never told. The release tick ends a
 * stuck wait at its expiry and dies right after writing its final (a Lambda timeout): the held
 * record stays, for a later tick to tell that end. Once the dead tick's ending lease ran out, a
 * person cancels the request. The cancel must be refused (the request has an end: the existing
 * "was not cancelled: it had ended as …"), and the expiry told once to the channel. A cancel
 * marked anyway (by an earlier version) must not make the tick drop that end untold.
 *
 * The deployed tick, the real webhook and CLI on the emulators; the death is a table whose calls
 * stop answering right after the final lands (dyingAfterPut).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { parsePolicy } from '../../src/policy/parse.js';
import { readAudit, readFinal } from '../../src/state/audit.js';
import { listHeld, readHeld } from '../../src/state/held.js';
import { markCancelled } from '../../src/state/held-gates.js';
import { captureIo } from '../helpers/cli-io.js';
import { basePolicy, benchResetEachTest, channelPostsAbout, dyingAfterPut } from './fixture.js';
import { chatCommand } from './questions.js';
import { deployedTick, holdStuck } from './stuck.js';

const bench = benchResetEachTest();
let cwd = '';
beforeAll(async () => {
  cwd = mkdtempSync(join(tmpdir(), 'autopilot-untold-cancel-'));
  writeFileSync(join(cwd, 'policy.json'), JSON.stringify(basePolicy(bench.slack.origin)));
});

/**
 * `id` stuck since Monday; on Thursday at 10:00:30, past maxDeferHours (72), the tick ends it as
 * expired and dies right after its final. Its ending lease (15 minutes) runs out at 10:15:30.
 */
async function expiryDiedAfterFinal(id: string) {
  await holdStuck(bench, id);
  const policy = parsePolicy(basePolicy(bench.slack.origin));
  const before = bench.slack.posts.length;
  const dying = dyingAfterPut(
    bench,
    (item) =>
      item.pk?.S === `audit#${id}` && item.sk?.S === 'final' && (item.outcome?.S ?? '').includes('denied'),
  );
  bench.clock.now = new Date('2026-11-26T10:00:30Z');
  void deployedTick({ ...bench, table: dying.table }, policy)({ time: bench.clock.now.toISOString() });
  await dying.died;
  return { policy, before };
}

/** Later ticks, past the cancel. */
async function laterTicks(policy: ReturnType<typeof parsePolicy>) {
  const tick = deployedTick(bench, policy);
  for (const iso of ['2026-11-26T10:16:30Z', '2026-11-26T10:17:30Z', '2026-11-26T10:33:30Z']) {
    bench.clock.now = new Date(iso);
    await tick({ time: iso });
  }
}

async function expectExpiryToldOnce(id: string, before: number) {
  expect(await readFinal(bench.table, id)).toMatchObject({ result: 'denied', rule: 'maxDeferHours' });
  const told = channelPostsAbout(bench, id, before);
  expect(told, told.join('\n')).toHaveLength(1);
  expect(told[0]).toContain('Denied');
  const ends = (await readAudit(bench.table, id)).map((r) => r.result);
  expect(ends.filter((r) => r === 'denied' || r === 'cancelled')).toEqual(['denied']);
  expect((await listHeld(bench.table)).map((h) => h.requestId)).not.toContain(id);
}

it('a Slack cancel after the tick died past its expiry’s final is refused, and the expiry is told once', async () => {
  const id = 'untold-cancel-slack';
  const { policy, before } = await expiryDiedAfterFinal(id);

  bench.clock.now = new Date('2026-11-26T10:16:00Z');
  const reply = await chatCommand(bench, `cancel ${id} clean up`);
  expect(reply).not.toContain('is *cancelled*');
  expect(reply).toContain('denied');
  expect((await readHeld(bench.table, id))?.cancel).toBeUndefined();

  await laterTicks(policy);
  await expectExpiryToldOnce(id, before);
});

it('`autopilot cancel` after the tick died past its expiry’s final is refused, and the expiry is told once', async () => {
  const id = 'untold-cancel-cli';
  const { policy, before } = await expiryDiedAfterFinal(id);

  bench.clock.now = new Date('2026-11-26T10:16:00Z');
  const t = captureIo({
    env: {
      STATE_TABLE_NAME: bench.table.tableName,
      AWS_ENDPOINT_URL_DYNAMODB: bench.emulators.dynamodbEndpoint,
      SLACK_WEBHOOK_URL: bench.slack.url('/services/channel'),
      USER: 'alice',
    },
    cwd,
    now: () => bench.clock.now,
  });
  expect(await runCli(['cancel', id, '--reason', 'release called off'], t.io)).toBe(1);
  expect(t.err()).toContain(`request ${id} was not cancelled: it had already ended as denied`);
  expect(t.out()).not.toContain('Cancelled');
  expect((await readHeld(bench.table, id))?.cancel).toBeUndefined();

  await laterTicks(policy);
  await expectExpiryToldOnce(id, before);
});

it('a cancel marked over an untold expiry (as earlier versions marked it) does not make the tick drop the expiry', async () => {
  const id = 'untold-cancel-marked';
  const { policy, before } = await expiryDiedAfterFinal(id);

  const at = '2026-11-26T10:16:00.000Z';
  expect(await markCancelled(bench.table, id, { by: 'slack:U0ADMIN', at, reason: 'clean up' })).toBe(
    'marked',
  );

  await laterTicks(policy);
  await expectExpiryToldOnce(id, before);
});
