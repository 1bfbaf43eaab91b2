/** `policy diff` says that the Slack incoming-webhook URL (a credential) changed, never what it was or is: its output ends up in CI logs and reviews. */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { captureIo } from '../helpers/cli-io.js';

const REPO = resolve(import.meta.dirname, '../..');
const dir = mkdtempSync(join(tmpdir(), 'review-diff-secret-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const WEBHOOK = 'https://hooks.slack.com/services/T0SECRET/B0SECRET/abcdefghijklmnopqrstuvwx';

async function diff(before: unknown, after: unknown, ...flags: string[]) {
  writeFileSync(join(dir, 'old.json'), JSON.stringify(before));
  writeFileSync(join(dir, 'new.json'), JSON.stringify(after));
  const t = captureIo({ cwd: dir });
  const code = await runCli(['policy', 'diff', 'old.json', 'new.json', ...flags], t.io);
  return { code, all: `${t.out()}\n${t.err()}` };
}

describe('policy diff and the webhook URL', () => {
  const shipped = () => JSON.parse(readFileSync(join(REPO, 'policy.json'), 'utf8'));

  it('moving the webhook URL out of the policy (the advised migration) does not print it', async () => {
    const before = shipped();
    before.notifications = { slackWebhookUrl: WEBHOOK };
    const after = shipped();
    after.notifications = {};
    for (const flags of [[], ['--json']]) {
      const { code, all } = await diff(before, after, ...flags);
      expect(code).toBe(0);
      expect(all).toContain('notifications');
      expect(all).not.toContain('B0SECRET');
      expect(all).not.toContain('abcdefghijklmnopqrstuvwx');
    }
  });

  it('rotating it does not print either URL', async () => {
    const before = shipped();
    before.notifications = { slackWebhookUrl: WEBHOOK };
    const after = shipped();
    after.notifications = { slackWebhookUrl: `${WEBHOOK}NEW` };
    const { all } = await diff(before, after);
    expect(all).not.toContain('abcdefghijklmnopqrstuvwx');
  });
});
