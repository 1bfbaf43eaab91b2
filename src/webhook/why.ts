/**
 * `/autopilot why <requestId>`: a request's whole story from the audit trail, for the person
 * who got the id back (src/audit/story.ts writes it; every line is escaped: reasons hold text
 * from people and from the platform). Read-only, within the request's deadline.
 */
import { storyLines, storyOf } from '../audit/story.js';
import { oneLine } from '../slack/mrkdwn.js';
import { ephemeral, escapeMrkdwn, problem, section } from './blocks.js';
import { type ShortAnswer, settledOrAnswer } from './deadline.js';
import type { WebhookDeps } from './deps.js';

/** Slack's limit for a section's text is 3000 characters; the steps stay under it. */
const STEPS_LIMIT = 2800;

export async function answerWhy(
  deps: WebhookDeps,
  requestId: string,
  deadline: number,
  now: () => number,
): Promise<ShortAnswer> {
  if (!deps.audit)
    return { reply: problem('The audit trail cannot be read from here.'), outcome: 'unavailable' };
  const read = await settledOrAnswer(deps.audit.read(requestId), deadline, now, {
    late: { text: 'The audit trail is slow to answer right now; please try again.', outcome: 'timeout' },
    failed: { text: 'The audit trail cannot be read right now; please try again.', outcome: 'read_failed' },
  });
  if (!read.ok) return read.answer;
  const [heading = '', ...steps] = storyLines(storyOf(requestId, read.value.records, read.value.final));
  let body = '';
  let shown = 0;
  for (const line of steps) {
    // Inside a code block: a backtick from a reason or a platform message could close it, and a
    // line break in one wrote a step of its own under ours (one line each, as the worker posts it).
    const next = `${body}${escapeMrkdwn(oneLine(line).trim().replace(/`/g, "'"))}\n`;
    if (next.length > STEPS_LIMIT) break;
    body = next;
    shown++;
  }
  const more =
    steps.length - shown > 0 ? `(${steps.length - shown} more: \`npx autopilot audit --request\`)\n` : '';
  const blocks = [
    section(`*${escapeMrkdwn(heading)}*`),
    ...(body ? [section(`\`\`\`\n${body}${more}\`\`\``)] : []),
  ];
  return { reply: ephemeral(heading, blocks), outcome: 'ok' };
}
