/**
 * `autopilot audit --request <id>` for an id with no audit record (a typo, a request never picked
 * up, or one older than the table keeps) exited 0 with a one-line "story", so a script could not
 * tell "no such request" from a request that has a story. It exits 1 ("the command failed", as
 * `dlq delete` does for an id it cannot find), naming the id on stderr; a known id still exits 0.
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { captureIo } from '../helpers/cli-io.js';
import { benchForFile } from '../worker/fixture.js';

const bench = benchForFile();

function io() {
  return captureIo({
    env: {
      STATE_TABLE_NAME: bench.table.tableName,
      AWS_ENDPOINT_URL_DYNAMODB: bench.emulators.dynamodbEndpoint,
    },
    now: () => new Date('2026-11-23T11:00:00Z'),
  });
}

describe('autopilot audit --request <unknown id>', () => {
  it('exits 1 naming the id, as text and as --json, while a known id exits 0', async () => {
    await bench.send({ triggerId: 'trg_zz6', phaseId: 'ph_1', requestId: 'known-story' });
    await bench.run(bench.worker(), await bench.receive(1));
    const known = io();
    expect(await runCli(['audit', '--request', 'known-story'], known.io)).toBe(0);
    expect(known.out()).toContain('request known-story:');

    const text = io();
    expect(await runCli(['audit', '--request', 'known-stroy'], text.io)).toBe(1);
    expect(text.err()).toContain('known-stroy');
    expect(text.err()).toContain('no audit record');
    const json = io();
    expect(await runCli(['audit', '--request', 'known-stroy', '--json'], json.io)).toBe(1);
    expect(json.err()).toContain('known-stroy');
    expect(json.out()).toBe('');
  });
});
