/**
 * `/autopilot why <requestId>`: a request's whole story from the audit trail, for the person
 * who got the id back (src/audit/story.ts writes it; every line is escaped: reasons hold text
 * from people and from the platform). Read-only, within the request's deadline.
 */
import { NO_AUDIT_RECORD, type RequestStory, storyLines, storyOf } from '../audit/story.js';
import { policyDigest } from '../policy/digest.js';
import { cutMrkdwn, oneLine } from '../slack/mrkdwn.js';
import { code, ephemeral, escapeMrkdwn, problem, section } from './blocks.js';
import { type ShortAnswer, settledOrAnswer } from './deadline.js';
import type { WebhookDeps } from './deps.js';

/** Slack's limit for a section's text is 3000 characters; the steps stay under it. */
const STEPS_LIMIT = 2800;
/** The first and the last line of a cut story are shortened to this, so both always fit. */
const SHOWN_LINE_LIMIT = 1200;

export async function answerWhy(
  deps: WebhookDeps,
  requestId: string,
  deadline: number,
  now: () => number,
): Promise<ShortAnswer> {
  if (!deps.audit)
    return { reply: problem('The audit trail cannot be read from here.'), outcome: 'unavailable' };
  // The audit trail is in the state table: its outcomes are counted (StateTableUnreachable), so a
  // trail nobody can read (the role's read of audit#*, the table gone) pages an operator.
  const read = await settledOrAnswer(deps.audit.read(requestId), deadline, now, {
    late: {
      text: 'The audit trail is slow to answer right now; please try again.',
      outcome: 'state_unconfirmed',
    },
    failed: {
      text: 'The audit trail cannot be read right now; please try again.',
      outcome: 'state_unreachable',
    },
  });
  if (!read.ok) return read.answer;
  // Steps a policy other than the deployed one decided say so: a request held across a redeploy
  // keeps its old policy's next look and question until it is looked at again.
  const deployed = deps.policyDigest ?? policyDigest(deps.policy);
  const story = storyOf(requestId, read.value.records, read.value.final);
  const [told = '', ...lines] = storyLines(story, deployed);
  // The fallback text: one line, invisible characters shown, like the steps (the blocks' heading is `headingOf`).
  const heading = oneLine(told);
  // Inside a code block: a backtick from a reason or a platform message could close it, and a
  // line break in one wrote a step of its own under ours (one line each, as the worker posts it).
  const body = fitSteps(lines.map((line) => `${escapeMrkdwn(oneLine(line).trim().replace(/`/g, "'"))}\n`));
  const blocks = [section(headingOf(story)), ...(body ? [section(`\`\`\`\n${body}\`\`\``)] : [])];
  return { reply: ephemeral(heading, blocks), outcome: 'ok' };
}

/**
 * The heading: the request, what it does to which target, and who asked. The target (group names
 * an event rule filled in from client-logged metadata) and the requester (a CI job's
 * `requestedBy.id`, any text) are the sender's: each in a code span of its own (`inlineCode`: one
 * line, invisible characters shown, no backtick), so that a `*` or `_` in them formats nothing
 * around it; in a bold heading a `*` ended the bold early and bolded the rest.
 */
function headingOf(story: RequestStory): string {
  const request = `*Request* ${code(story.requestId)}`;
  if (story.steps.length === 0 && !story.final) return `${request}: ${NO_AUDIT_RECORD}`;
  const shown = (value: string) => (value ? code(value) : 'unknown');
  const action = story.action ? escapeMrkdwn(oneLine(story.action)) : 'unknown';
  return `${request}: ${action} ${shown(story.target)}, asked by ${shown(story.requester)}`;
}

/**
 * The story's lines within STEPS_LIMIT. A question looked at every hour writes two steps an hour,
 * so a long wait has far more than fit: cut oldest first, `why` showed only its first hours, and
 * never its latest step nor the line saying how it ended (or that it has not). So the first step
 * (what was asked and decided) and the last line always show, and the latest steps that fit; the
 * steps left out between are counted.
 */
function fitSteps(lines: string[]): string {
  if (lines.join('').length <= STEPS_LIMIT) return lines.join('');
  // Each of the two is cut to a share of the room, so a step with a very long reason still leaves it.
  // Lines are escaped already: cutMrkdwn never cuts inside an escape (`&am…` shown as text) nor
  // between the two halves of an emoji (a lone surrogate, garbage to the reader).
  const clip = (line: string) =>
    line.length > SHOWN_LINE_LIMIT ? `${cutMrkdwn(line.slice(0, -1), SHOWN_LINE_LIMIT - 1)}\n` : line;
  const last = clip(lines.at(-1) ?? '');
  const [head = '', ...middle] = lines.slice(0, -1);
  const first = clip(head);
  // Only when steps were left out: a story over the limit by its first or last line alone has none.
  const note = (n: number) => (n > 0 ? `(${n} more: \`npx autopilot audit --request\`)\n` : '');
  let room = STEPS_LIMIT - first.length - last.length - note(middle.length).length;
  const latest: string[] = [];
  for (let i = middle.length - 1; i >= 0 && (middle[i]?.length ?? 0) <= room; i--) {
    const line = middle[i] ?? '';
    latest.unshift(line);
    room -= line.length;
  }
  return `${first}${note(middle.length - latest.length)}${latest.join('')}${last}`;
}
