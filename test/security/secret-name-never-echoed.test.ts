/**
 * A value pasted where a field's name belongs must not be echoed in the warning or the error that
 * names unknown fields: a Slack signing secret is 32 hex characters (a letter first a third of the
 * time), an AWS access key id 20 upper-case letters and digits, and `name=value` holds its value.
 * The values below are fakes shaped like those credentials.
 */
import { describe, expect, it } from 'vitest';
import { readSecretJson, SecretsError } from '../../src/secrets/secret-json.js';

const FAKE_SIGNING = ['e3b0c442', '98fc1c14', '9afbf4c8', '996fb924'].join('');
const FAKE_ACCESS_KEY_ID = ['AKIA', 'QX7TESTFAKE2ZZ9Y'].join('');
const FAKE_KEY_VALUE = ['fake', 'Key', '0123456789'].join('');

function allText(json: Record<string, string>): string {
  try {
    const { warnings } = readSecretJson('webhook-secret', JSON.stringify(json), []);
    return warnings.map((w) => w.message).join('\n');
  } catch (error) {
    if (!(error instanceof SecretsError)) throw error;
    return error.message;
  }
}

describe('a credential pasted as a field name of a JSON secret', () => {
  it('is not echoed when it is a 32-hex Slack signing secret starting with a letter', () => {
    const text = allText({ slackSigningSecret: '', consoleReadOnlyApiKey: 'x', [FAKE_SIGNING]: '' });
    expect(text).toContain('not shown');
    expect(text).not.toContain(FAKE_SIGNING);
  });

  it('is not echoed when it is an access key id', () => {
    const text = allText({ consoleApiKey: 'x', [FAKE_ACCESS_KEY_ID]: '' });
    expect(text).not.toContain(FAKE_ACCESS_KEY_ID);
  });

  it('is not echoed when it follows our field name in the name (name=value)', () => {
    const text = allText({ [`consoleApiKey=${FAKE_KEY_VALUE}`]: '' });
    expect(text).toContain('consoleApiKey');
    expect(text).not.toContain(FAKE_KEY_VALUE);
  });

  it('still names a misspelt field and an ordinary unknown one', () => {
    expect(allText({ slackWebHookUrl: 'x' })).toContain('"slackWebHookUrl"');
    expect(allText({ consoleApiKey: 'x', region: 'eu' })).toContain('"region"');
    expect(allText({ consoleApiKey: 'x', slackWebhookUrl2: 'y' })).toContain('"slackWebhookUrl2"');
  });
});
