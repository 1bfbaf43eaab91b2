/**
 * A request's whole story from the audit trail, in words: every decision and outcome the
 * worker recorded (with its rule and reason), deferrals with when it looks again, replays of
 * an earlier request's outcome, dead-lettering, and how it ended. One home for the CLI's
 * `autopilot audit` and the chat's `/autopilot why`. Pure: records in, lines out.
 */
import type { FinalOutcome, StoredAuditRecord } from '../state/audit.js';
import { FINAL_RESULTS } from '../worker/replies.js';

/** Results after which nothing more happens to a request. */
const ENDINGS: ReadonlySet<string> = new Set([...FINAL_RESULTS, 'dead-lettered', 'cancelled']);

/** Endings in which the change is made (or would be, in a dry run); a replay tells one made earlier. */
export const CHANGE_MADE: ReadonlySet<string> = new Set([
  'approved',
  'groups-disabled',
  'archived',
  'would-mutate',
  'replayed',
]);

/** The requester an audit record of a refused message names: what it claimed, never trusted. */
const REFUSED_CLAIM = 'unproven ';

/**
 * The steps of the request the id belongs to: a message refused for claiming the id (an unproven
 * requester, another requester's id: src/worker/dead-letter.ts) is no step of it, nor its end,
 * when the id has steps of its own. A refused message alone under its id is its own story.
 */
export function ownSteps(steps: StoredAuditRecord[]): StoredAuditRecord[] {
  const own = steps.filter((step) => !step.requester.startsWith(REFUSED_CLAIM));
  return own.length > 0 ? own : steps;
}

/**
 * How a request ended, or undefined while it waits. Its final says it (a completed mutation's
 * too, since this version; an older one's is told by the records); a copy of an ended request is
 * recorded as "replayed" after the ending it repeats, and a request whose change another request
 * already made has only the replay.
 */
export function endingOf(
  requestId: string,
  records: StoredAuditRecord[],
  final?: FinalOutcome,
): FinalOutcome | undefined {
  if (final) return final;
  const steps = ownSteps([...records].sort((a, b) => a.at.localeCompare(b.at)));
  const own = steps.filter((step) => step.result !== 'replayed').at(-1);
  const last = steps.at(-1);
  const ended = own && ENDINGS.has(own.result) ? own : last?.result === 'replayed' ? last : undefined;
  if (!ended) return undefined;
  const { result, rule, reason, at, mayHaveBeenDone } = ended;
  return {
    result,
    rule,
    reason,
    requestId,
    at,
    ...(mayHaveBeenDone === undefined ? {} : { mayHaveBeenDone }),
  };
}

export interface RequestStory {
  requestId: string;
  action: string;
  target: string;
  requester: string;
  steps: StoredAuditRecord[];
  /** How it ended, when it has. */
  final?: FinalOutcome;
}

export function storyOf(requestId: string, records: StoredAuditRecord[], final?: FinalOutcome): RequestStory {
  const steps = [...records].sort((a, b) => a.at.localeCompare(b.at));
  const first = ownSteps(steps)[0];
  const ending = endingOf(requestId, steps, final);
  return {
    requestId,
    action: first?.action ?? '',
    target: first?.target ?? '',
    requester: first?.requester ?? '',
    steps,
    ...(ending ? { final: ending } : {}),
  };
}

/**
 * Which policy decided a step, in words. Without `deployed` (the CLI, which cannot know what is
 * deployed) its digest, to match with `policy check`; with it, only a policy other than that one:
 * a held request keeps the next look and the question its deciding policy gave it.
 */
function policyWords(step: StoredAuditRecord, deployed?: string): string | undefined {
  if (!step.policyDigest) return undefined;
  if (deployed === undefined) return `policy ${step.policyDigest}`;
  if (step.policyDigest === deployed) return undefined;
  return `decided under policy ${step.policyDigest}, not the one deployed now (${deployed})`;
}

/**
 * One step in words: when, what happened, by which rule, why. `deployed`: the short digest of the
 * policy deployed now (`why`), against which the step's deciding policy is told.
 */
export function stepLine(step: StoredAuditRecord, deployed?: string): string {
  const extras = [
    step.deferUntil ? `looks again at ${step.deferUntil}` : undefined,
    step.replayOf ? `as request ${step.replayOf}` : undefined,
    step.dryRun ? 'dry run' : undefined,
    policyWords(step, deployed),
  ].filter(Boolean);
  return `${step.at}  ${step.result}  rule ${step.rule}: ${step.reason}${extras.length ? ` (${extras.join('; ')})` : ''}`;
}

/** What a story with no record says after the request's id (the CLI's line, the heading `why` shows). */
export const NO_AUDIT_RECORD = 'no audit record (unknown id, not yet picked up, or older than 90 days)';

/** The story as plain lines: a heading, each step, and the ending (or that it has not ended). `deployed`: as `stepLine`. */
export function storyLines(story: RequestStory, deployed?: string): string[] {
  if (story.steps.length === 0 && !story.final) return [`request ${story.requestId}: ${NO_AUDIT_RECORD}`];
  return [
    `request ${story.requestId}: ${story.action} ${story.target}, asked by ${story.requester}`,
    ...story.steps.map((step) => `  ${stepLine(step, deployed)}`),
    story.final
      ? `  ended: ${story.final.result} (rule ${story.final.rule}) at ${story.final.at}`
      : '  not ended yet: it is waiting (see the last step)',
  ];
}
