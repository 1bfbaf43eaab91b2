/** postToSlack scrubs a secret however deep a message nests it (scrubDeep stopped at depth 8 and passed the rest). */
import { describe, expect, it } from 'vitest';
import type { HttpRequest } from '../../src/http/send.js';
import { postToSlack } from '../../src/slack/post.js';
import { rememberSecret } from '../../src/util/secret-scrub.js';

const KEY = 'console-key-9d8e7f6a5b';

describe('postToSlack scrubs a secret however deep the message nests it', () => {
  it('does not post a held secret nested below depth 8', async () => {
    rememberSecret(KEY);
    let leaf: unknown = { type: 'text', text: `the platform said: bad key ${KEY}` };
    for (let i = 0; i < 4; i++) leaf = { type: 'rich_text_list', elements: [leaf] };
    const message = { text: 'outcome', blocks: [{ type: 'rich_text', elements: [leaf] }] };
    let body = '';
    const posted = await postToSlack('https://hooks.slack.com/services/T/B/x', message as never, {
      send: async (request: HttpRequest) => {
        body = String(request.body);
        return { status: 200, headers: {}, text: 'ok' } as never;
      },
    });
    expect(posted.ok).toBe(true);
    expect(body).toContain('the platform said');
    expect(body).not.toContain(KEY);
  });
});
