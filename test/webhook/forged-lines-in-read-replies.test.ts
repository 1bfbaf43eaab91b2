/**
 * Review (what people read in Slack): `/autopilot role` and `/autopilot segment` show what the
 * platform holds (a role's name; a segment's id, type, count, "Last modified by", description),
 * which anyone with project access writes. It was escaped but not put on one line, and invisible
 * characters were not shown: a role name holding a line break put a line of its writer's choosing
 * under our header and fallback text, a description wrote lines that read as ours, and a U+202E
 * turned the rest of a line around. Now they are shown as the other replies show untrusted text:
 * one line (oneLine), a description quoted line by line (quoteLines), invisible characters as
 * `[U+202E]`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConsoleClient } from '../../src/console/index.js';
import { type RunningSandbox, startSandbox } from '../../src/sandbox/index.js';
import { commandBody, signedRequest } from '../helpers/slack-requests.js';
import { buildApp } from './harness.js';

const FORGED = ':white_check_mark: Approved by the release manager: production rollout';
const LINE_BREAKS = ['\n', '\r\n', '\u2028', '\u2029', '\u0085'];

let sandbox: RunningSandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ seed: 42 });
});
afterAll(async () => {
  await sandbox?.close();
});

/** The reply's fallback text and every text of its blocks. */
async function read(text: string): Promise<string[]> {
  const console = createConsoleClient({ baseUrl: sandbox.url, apiKey: 'sandbox-key', timeoutMs: 2_000 });
  const { app } = buildApp({ console });
  const res = await app.request(signedRequest('/slack/commands', commandBody({ text, userId: 'U0READER' })));
  expect(res.status).toBe(200);
  const reply = (await res.json()) as { text: string; blocks: unknown[] };
  const texts: string[] = [reply.text];
  JSON.parse(JSON.stringify(reply.blocks), (key, value) => {
    if (key === 'text' && typeof value === 'string') texts.push(value);
    return value;
  });
  return texts;
}

/** Lines of `texts` that start with the forged words (a quoted line, `> …`, is shown as a quote). */
function forgedLines(texts: string[]): string[] {
  return texts
    .flatMap((t) => t.split(/\r\n|[\n\r\v\f\u0085\u2028\u2029]/))
    .filter((l) => /^\s*:white/.test(l));
}

describe('platform text in /autopilot role and segment', () => {
  it('role: a name with a line break or a bidi override writes no line of its own', async () => {
    const role = sandbox.sandbox.state.roles.get('member') as unknown as Record<string, unknown>;
    const before = role.name;
    try {
      for (const br of LINE_BREAKS) {
        role.name = `Member${br}${FORGED}\u202E`;
        const texts = await read('role member');
        expect(forgedLines(texts)).toEqual([]);
        expect(texts.some((t) => t.includes('\u202E'))).toBe(false);
        expect(
          texts.some((t) => t.startsWith('Role Member :white_check_mark:') && t.includes('[U+202E]')),
        ).toBe(true);
      }
    } finally {
      role.name = before;
    }
  });

  it('segment: "Last modified by" and the description write no line of their own', async () => {
    const segment = sandbox.sandbox.state.segments.get('beta_testers') as unknown as Record<string, unknown>;
    const saved = { ...segment };
    try {
      for (const br of LINE_BREAKS) {
        segment.lastModifierName = `Ada\u202E${br}${FORGED}`;
        segment.description = `Beta users.${br}${FORGED}${br}\u200Bmore`;
        const texts = await read('segment beta_testers');
        expect(forgedLines(texts)).toEqual([]);
        expect(texts.some((t) => /[\u202E\u200B]/.test(t))).toBe(false);
        expect(texts.some((t) => t.includes('Ada[U+202E] :white_check_mark:'))).toBe(true);
        // The description keeps its lines, each quoted: shown as the platform's, not ours.
        expect(texts.some((t) => t.includes('> Beta users.') && t.includes('> [U+200B]more'))).toBe(true);
      }
    } finally {
      Object.assign(segment, saved);
    }
  });
});
