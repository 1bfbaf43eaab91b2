/**
 * README "The Slack app", step 1: the command it gives writes the manifest to a file that step 2
 * pastes into Slack ("paste the JSON"). `npm run slack:manifest -- --url … > slack-manifest.json`
 * also wrote npm's own banner (`> console-autopilot@0.1.0 slack:manifest`, `> tsx …`) into that
 * file, on stdout before the JSON: the file was not JSON and Slack refused it. This runs the
 * README's own command line, as written, into a temporary file and reads the file back.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../infra/bundling.js';

const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
const dir = mkdtempSync(join(tmpdir(), 'slack-manifest-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Step 1's command: the code span after "Generate the manifest:" in "The Slack app". */
function stepOneCommand(): string {
  const section = readme.slice(readme.indexOf('### The Slack app'));
  const match = /Generate the manifest: `([^`]+)`/.exec(section);
  expect(match, 'README "The Slack app" step 1 gives a command').not.toBeNull();
  return match![1]!;
}

describe('README "The Slack app" step 1', () => {
  it('writes a file that holds the manifest as JSON, and nothing else', () => {
    const command = stepOneCommand();
    expect(command).toMatch(/> slack-manifest\.json$/);
    const file = join(dir, 'slack-manifest.json');
    const url = 'https://abc123.execute-api.eu-west-1.amazonaws.com';
    execFileSync('sh', ['-c', command.replace(/slack-manifest\.json$/, JSON.stringify(file))], {
      cwd: REPO_ROOT,
      env: { ...process.env, WEBHOOK_URL: url },
      stdio: ['ignore', 'ignore', 'pipe'],
      timeout: 60_000,
    });
    const text = readFileSync(file, 'utf8');
    const manifest = JSON.parse(text) as { settings: { interactivity: { request_url: string } } };
    expect(manifest.settings.interactivity.request_url).toBe(`${url}/slack/interactions`);
  }, 90_000);
});
