/**
 * `autopilot cancel` prints what it cancelled: the held request's target, which a queue sender
 * chose (group names are any text: no character check). `held` shows the same target escaped
 * (renderTable); the cancel line printed it raw, so an escape sequence in a group name drove the
 * operator's terminal and a newline forged a line of output.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { listHeld } from '../../src/state/held.js';
import { writePause } from '../../src/state/pause.js';
import { captureIo } from '../helpers/cli-io.js';
import { basePolicy, benchForFile } from '../worker/fixture.js';

const ESC = '\u001b';
const evilGroup = `g1${ESC}[2J${ESC}]0;owned${ESC}\\\nCancelled nothing`;

const bench = benchForFile();
let cwd = '';

beforeAll(async () => {
  cwd = mkdtempSync(join(tmpdir(), 'autopilot-cancel-escape-'));
  const policy = basePolicy(bench.slack.origin);
  // CI may disable groups, so `cli:alice` (asking as ci:cli:alice) may cancel such a request.
  policy.actions = { ...policy.actions, disable_groups: { requesters: ['ci:*', 'slack:U0ADMIN'] } };
  writeFileSync(join(cwd, 'policy.json'), JSON.stringify(policy));
  // Paused: the worker holds the request.
  await writePause(bench.table, { paused: true, by: 'slack:U0ADMIN', at: bench.clock.now });
  await bench.send({
    action: 'disable_groups',
    experimentId: 'exp_1',
    groupNames: [evilGroup],
    requestId: 'evil-groups',
  } as never);
  await bench.run(bench.worker(), await bench.receive());
});

/** A character a terminal acts on (C0 but the line breaks the command's own lines, DEL, C1). */
const controls = (text: string) => [...text].filter((c) => /[\p{Cc}]/u.test(c) && c !== '\n');

describe('autopilot cancel of a request with untrusted fields', () => {
  it('prints the target escaped, on one line', async () => {
    expect((await listHeld(bench.table)).map((h) => h.requestId)).toEqual(['evil-groups']);
    const t = captureIo({
      env: {
        STATE_TABLE_NAME: bench.table.tableName,
        AWS_ENDPOINT_URL_DYNAMODB: bench.emulators.dynamodbEndpoint,
        USER: 'alice',
      },
      cwd,
    });
    expect(await runCli(['cancel', 'evil-groups', '--reason', 'bogus'], t.io), t.err()).toBe(0);
    expect(controls(t.out())).toEqual([]);
    expect(t.out().split('\n')).toHaveLength(1);
    expect(t.out()).toContain('\\u001b[2J');
  });
});
