/**
 * `autopilot cancel` of a held request whose own end was already written (its writer died before
 * telling it and taking the held record off) is refused with how it ended: "it had already ended
 * as rejected (rule: <the platform's message>)". That reason is text from outside (the Console
 * API's error message, which echoes the request's group names; a requester id any queue sender
 * chooses). The other refusal (`ended as … before the cancel took effect`) is printed escaped;
 * this one went to the terminal raw, so an escape sequence in it drove the operator's terminal
 * and a newline forged a line of the CLI's output.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestOwner } from '../../src/actions/request.js';
import { runCli } from '../../src/cli/run.js';
import { recordFinal } from '../../src/state/audit.js';
import { listHeld } from '../../src/state/held.js';
import { writePause } from '../../src/state/pause.js';
import { captureIo } from '../helpers/cli-io.js';
import { type Bench, basePolicy, startBench } from '../worker/fixture.js';

const ESC = '\u001b';
const evilGroup = `g1${ESC}]0;owned${ESC}\\${ESC}[2J`;
const platformMessage = `group "${evilGroup}" cannot be disabled\nCancelled evil-end (nothing): ok`;

let bench: Bench;
let cwd = '';

beforeAll(async () => {
  bench = await startBench();
  cwd = mkdtempSync(join(tmpdir(), 'autopilot-review-cancel-refusal-'));
  const policy = basePolicy(bench.slack.origin);
  policy.actions = { ...policy.actions, disable_groups: { requesters: ['ci:*', 'slack:U0ADMIN'] } };
  writeFileSync(join(cwd, 'policy.json'), JSON.stringify(policy));
  await writePause(bench.table, { paused: true, by: 'slack:U0ADMIN', at: bench.clock.now });
  const request = {
    action: 'disable_groups',
    experimentId: 'exp_1',
    groupNames: [evilGroup],
    requestId: 'evil-end',
  };
  await bench.send(request as never);
  await bench.run(bench.worker(), await bench.receive());
  // A copy of it ended it (the platform refused, echoing the group name) and died before telling.
  const held = (await listHeld(bench.table)).find((h) => h.requestId === 'evil-end');
  if (!held) throw new Error('the request is not held');
  await recordFinal(
    bench.table,
    {
      result: 'rejected',
      rule: 'api-error',
      reason: platformMessage,
      requestId: 'evil-end',
      at: bench.clock.now.toISOString(),
      mayHaveBeenDone: false,
    },
    bench.clock.now,
    requestOwner(held.request),
  );
});
afterAll(async () => {
  await bench?.close();
});

/** A character a terminal acts on (C0 but the line breaks the command's own lines, DEL, C1). */
const controls = (text: string) => [...text].filter((c) => /[\p{Cc}]/u.test(c) && c !== '\n');

describe('autopilot cancel refused for an end already written', () => {
  it('prints that end’s reason escaped, on one line', async () => {
    const t = captureIo({
      env: {
        STATE_TABLE_NAME: bench.table.tableName,
        AWS_ENDPOINT_URL_DYNAMODB: bench.emulators.dynamodbEndpoint,
        USER: 'alice',
      },
      cwd,
      now: () => bench.clock.now,
    });
    expect(await runCli(['cancel', 'evil-end', '--reason', 'bogus'], t.io), t.err()).toBe(1);
    expect(t.err()).toContain('had already ended as rejected');
    expect(controls(t.err())).toEqual([]);
    expect(t.err().split('\n')).toHaveLength(1);
    expect(t.out()).toBe('');
  });
});
