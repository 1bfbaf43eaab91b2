/**
 * `--local` with an endpoints file that is not a running stack's (empty after a crash mid-write,
 * `{}`, from an older version): the CLI printed `autopilot: SyntaxError: Unexpected end of JSON
 * input`, or called the SDK with `undefined` ("cannot read the held requests of undefined: Could
 * not load credentials from any providers"). It must say the file is not a stack's and to start one.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { captureIo } from '../helpers/cli-io.js';

const dir = mkdtempSync(join(tmpdir(), 'autopilot-endpoints-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('an endpoints file that is not a running stack’s', () => {
  it.each([
    ['empty', '', 'not JSON'],
    ['not JSON', '{"webhookUrl": "http://127.0.0.1:8787",', 'not JSON'],
    ['without endpoints', '{}', 'no webhookUrl'],
  ])('%s: --local says so in one line and exits 1', async (name, text, why) => {
    const file = join(dir, `${name.replace(/\s/g, '-')}.json`);
    writeFileSync(file, text);
    for (const args of [
      ['held', '--local'],
      ['dlq', 'list', '--local'],
    ]) {
      const run = captureIo({ env: { AUTOPILOT_ENDPOINTS_FILE: file, AWS_REGION: 'us-east-1' } });
      const code = await runCli(args, run.io);
      expect(run.err()).toContain(`${file} is not a local stack's endpoints file (${why}`);
      expect(run.err()).toContain('npm start');
      expect(run.err().split('\n')).toHaveLength(1);
      expect(code).toBe(1);
    }
  });
});
