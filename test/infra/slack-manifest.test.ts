/**
 * The Slack app manifest generated for a deployed webhook (`npm run slack:manifest`).
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../infra/bundling.js';
import { buildSlackManifest, ManifestUsageError, parseManifestArgs } from '../../src/slack/manifest.js';
import { runManifestCli } from '../../src/slack/manifest-cli.js';

const URL = 'https://abc123.execute-api.eu-central-1.amazonaws.com';

describe('the Slack manifest', () => {
  it('points the /autopilot command and interactivity at the webhook routes', () => {
    const manifest = buildSlackManifest({ url: `${URL}/` });
    expect(manifest.features.slash_commands).toEqual([
      expect.objectContaining({ command: '/autopilot', url: `${URL}/slack/commands`, should_escape: false }),
    ]);
    expect(manifest.settings.interactivity).toEqual({
      is_enabled: true,
      request_url: `${URL}/slack/interactions`,
    });
    expect(manifest.oauth_config.scopes.bot).toEqual(['commands', 'incoming-webhook']);
  });

  it('keeps a base path and takes the command name and app name from options', () => {
    const manifest = buildSlackManifest({
      url: 'https://bots.example.com/autopilot',
      command: '/ap',
      appName: 'ap',
    });
    expect(manifest.features.slash_commands[0]).toMatchObject({
      command: '/ap',
      url: 'https://bots.example.com/autopilot/slack/commands',
    });
    expect(manifest.display_information.name).toBe('ap');
  });

  it('refuses a URL that is not https, or that carries a query', () => {
    expect(() => buildSlackManifest({ url: 'http://abc.example.com' })).toThrow(ManifestUsageError);
    expect(() => buildSlackManifest({ url: 'abc.example.com' })).toThrow(/absolute https URL/);
    expect(() => buildSlackManifest({ url: `${URL}?x=1` })).toThrow(/without query/);
    expect(() => buildSlackManifest({ url: URL, command: 'autopilot' })).toThrow(/--command/);
  });

  it('parses --url in both spellings and rejects unknown or empty arguments', () => {
    expect(parseManifestArgs(['--url', URL])).toEqual({ url: URL });
    expect(parseManifestArgs([`--url=${URL}`, '--command', '/ap'])).toEqual({ url: URL, command: '/ap' });
    expect(() => parseManifestArgs([])).toThrow(/--url is required/);
    expect(() => parseManifestArgs(['--url'])).toThrow(/needs a value/);
    expect(() => parseManifestArgs(['--url', URL, '--verbose'])).toThrow(/unknown argument/);
  });

  it('prints JSON on success and a usage message with exit code 2 otherwise', () => {
    const out: string[] = [];
    const err: string[] = [];
    const io = { out: (t: string) => out.push(t), err: (t: string) => err.push(t) };
    expect(runManifestCli(['--url', URL], io)).toBe(0);
    expect(JSON.parse(out.join('')).settings.interactivity.request_url).toBe(`${URL}/slack/interactions`);
    expect(runManifestCli(['--url', 'http://insecure.example.com'], io)).toBe(2);
    expect(err.join('')).toMatch(/--url must use https/);
  });

  it('exits non-zero from the command line without --url', () => {
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'src/slack/manifest-cli.ts'], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/--url is required/);
    expect(run.stdout).toBe('');
  });
});
