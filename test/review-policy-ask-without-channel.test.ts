/**
 * An `ask` needs the notifications channel: without one the worker denies the request
 * (src/worker/wait.ts), while `policy test`, `explain` and `replay` report the policy's `ask`.
 * A user who left the optional `slackWebhookUrl` out saw "ask" in every tool and "denied" in
 * production, with nothing in README or docs/policy.md saying so.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const read = (path: string) => readFileSync(new URL(path, import.meta.url), 'utf8').replace(/\s+/g, ' ');

describe('an ask without a notifications channel', () => {
  it('is denied by the worker', () => {
    expect(read('../src/worker/wait.ts')).toContain(
      'but no notifications channel (slackWebhookUrl) is set to ask in, so it is denied',
    );
  });

  it('is documented where ask and the secret are', () => {
    const readme = read('../README.md');
    expect(readme).toContain('With no notifications channel');
    expect(readme).toContain('and the request is **denied** with that reason');
    expect(readme).toContain('optional, but without it every `ask` is denied');
    expect(read('../docs/policy.md')).toContain('without one set, the worker denies instead');
  });
});
