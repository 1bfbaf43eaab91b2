/**
 * `npm start`'s Slack receiver prints each post on the developer's terminal, its texts made
 * printable (an escape sequence would drive the terminal). The heading names the path posted to,
 * which Hono hands over percent-decoded: `POST /response/%1b%5d0;pwned%07` retitled the terminal,
 * and `%0d` rewrote the line. Any page in the developer's browser can post to a loopback port.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type SlackReceiver, startSlackReceiver } from '../../src/local/slack-receiver.js';

let receiver: SlackReceiver;
const printed: string[] = [];
beforeAll(async () => {
  receiver = await startSlackReceiver({ print: (line) => printed.push(line) });
});
afterAll(async () => {
  await receiver?.close();
});

it('prints the path posted to without raw control characters', async () => {
  const res = await fetch(`${receiver.url}/response/%1b%5d0;pwned%07%0dX`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ text: 'hello' }),
  });
  expect(res.status).toBe(200);
  expect(printed).toHaveLength(1);
  // The line breaks the receiver frames a post with are its own; nothing else may be a control.
  expect(printed[0]?.replaceAll('\n', '')).not.toMatch(/\p{Cc}/u);
  expect(printed[0]).toContain('\\u001b');
});
