/**
 * `autopilot policy check` and `policy explain`: validate a policy file with the zod schema that
 * bundling the functions checks it with (an invalid file fails `cdk synth`), and show which rule
 * decides a request at a given time, and why — the same pure `decide` the worker runs, carried out
 * as the worker carries it out (an `ask` it cannot ask is denied: src/policy/ask-channel.ts).
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  type ActionRequest,
  actionRequestSchemas,
  actionTarget,
  futureDated,
  requesterKey,
} from '../actions/request.js';
import { asDeployed, channelContradiction } from '../policy/ask-channel.js';
import { decide, describeDecision } from '../policy/decide.js';
import { policyDigest } from '../policy/digest.js';
import { type Policy, policySchemas } from '../policy/schema.js';
import { policyWarnings } from '../policy/warnings.js';
import { formatPath } from '../util/zod-issues.js';
import { parse } from './args.js';
import { isoInstant } from './durations.js';
import { CommandError, UsageError } from './errors.js';
import { type CliIo, EXIT, printable, printHelp } from './io.js';
import { policyFileOf } from './policy-input.js';

export const POLICY_USAGE = `Usage:
  autopilot policy check [file] [--strict]
      Validate a policy file (default: AUTOPILOT_POLICY or policy.json). Prints a summary, the
      policy's digest (as audit records name it: policyDigest) and warnings (e.g. events that may
      approve any phase); an invalid file prints every problem with its path and exits 1.
      --strict: warnings exit 1 too.
  autopilot policy explain <request.json> [--at <time>] [--paused] [--no-channel] [--policy <file>] [--json]
      Decide an action request (a file, or - for stdin) as the worker would: which rule
      decides, and why. --at: an ISO 8601 instant with offset, seconds optional (default: now);
      --paused: as if /autopilot pause were in force; --no-channel: as if the worker had no
      notifications channel to ask in (default: it has one), so an ask is denied, as it is
      for a request too large for the Slack buttons.
  autopilot policy test [policy.json] [cases.json] [--json]
      Run the policy's test cases (default policy.cases.json); exit 1 if one fails.
  autopilot policy diff <old.json> <new.json> [--json]
      What changed between two policies, in words.
  autopilot policy replay --policy <new.json> [--since 30d] [--local | --table NAME] [--json]
      What the new policy would have decided for the audit trail's requests. Read-only.`;

function readJson(file: string, io: CliIo, what: string): unknown {
  let text: string;
  try {
    text = file === '-' ? readFileSync(0, 'utf8') : readFileSync(resolve(io.cwd, file), 'utf8');
  } catch (error) {
    throw new CommandError(
      `cannot read ${what} ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new CommandError(`${what} ${file} is not JSON: ${(error as Error).message}`);
  }
}

function policyFile(io: CliIo, given?: string): string {
  return policyFileOf(io.env, given);
}

/** Validates; on failure every issue, one per line, with its zod path. */
function loadPolicy(io: CliIo, file: string): Policy {
  const result = policySchemas().policy.safeParse(readJson(file, io, 'policy file'));
  if (result.success) return result.data;
  const lines = result.error.issues.map((issue) => `  ${formatPath(issue.path)}: ${issue.message}`);
  throw new CommandError(`${file} is not a valid policy:\n${lines.join('\n')}`);
}

function summary(policy: Policy, file: string, now: Date): string {
  const out: string[] = [
    `${file} is a valid policy (version ${policy.version}, time zone ${policy.timezone}).`,
    // What audit records name it by (`why`, `audit`, `policy replay`): the same for the file and its bundle.
    `Policy digest: ${policyDigest(policy)}`,
  ];
  const { approvals, actions, chat, sweeper } = policy;
  out.push(
    '',
    `Approvals (first match wins; otherwise ${approvals.otherwise}; defer at most ${approvals.maxDeferHours} h):`,
  );
  approvals.rules.forEach((rule, i) => {
    const extras = [
      rule.windows
        ? `windows ${rule.windows.map((w) => `${w.days.join(',')} ${w.start}-${w.end}`).join('; ')}, outside: ${rule.outsideWindows ?? 'defer'}`
        : 'any time',
      rule.maxPerHour ? `max ${rule.maxPerHour}/h` : undefined,
    ].filter(Boolean);
    out.push(
      `  ${i + 1}. "${rule.name}": ${rule.decision} for ${rule.when.requesters.join(', ')} (${extras.join('; ')})`,
    );
  });
  for (const freeze of approvals.freezes) {
    const state =
      Date.parse(freeze.end) <= now.getTime()
        ? 'over'
        : Date.parse(freeze.start) <= now.getTime()
          ? 'IN FORCE'
          : 'upcoming';
    out.push(`  freeze "${freeze.name}": ${freeze.start} – ${freeze.end} (${state})`);
  }
  out.push('', 'Actions:');
  for (const [name, rules] of Object.entries(actions)) {
    if (!rules) continue;
    const r = rules as { requesters?: string[]; protect?: string[]; maxPerDay?: number };
    out.push(
      `  ${name}: requesters ${r.requesters?.length ? r.requesters.join(', ') : 'nobody'}` +
        (r.protect?.length ? `; protect ${r.protect.join(', ')}` : '') +
        (r.maxPerDay ? `; max ${r.maxPerDay}/day` : ''),
    );
  }
  const grants = Object.entries(chat.grants);
  out.push(
    '',
    `Chat: teams ${chat.teams.join(', ') || 'none'}; ${grants.length} user(s) with grants` +
      (grants.length ? ` (${grants.map(([user, g]) => `${user}: ${g.join(',')}`).join('; ')})` : ''),
  );
  const stale = sweeper.staleConfigs;
  out.push(
    `Sweeper: ${sweeper.eventRules.length} event rule(s)` +
      (stale
        ? `; stale configs after ${stale.staleAfterDays} d (grace ${stale.graceDays} d, max ${stale.maxPerRun}/run, ` +
          `${stale.configs.length} watched${stale.discover ? ' + discovered' : ''}${stale.dryRun ? ', DRY RUN' : ''})`
        : '; no stale-config sweep'),
  );
  out.push(
    `Notifications: ${policy.notifications.slackWebhookUrl ? 'a Slack incoming webhook is set' : 'none'}`,
  );
  return out.join('\n');
}

/** `policy check [file] [--strict]`: a summary, then the warnings (failing with --strict). */
function policyCheck(rest: string[], io: CliIo): number {
  const { values, positionals, help } = parse(rest, { strict: { type: 'boolean' } }, POLICY_USAGE, {
    min: 0,
    max: 1,
  });
  if (help) return printHelp(io, POLICY_USAGE);
  const file = policyFile(io, positionals[0]);
  const policy = loadPolicy(io, file);
  io.stdout(summary(policy, file, io.now()));
  const warnings = policyWarnings(policy);
  if (warnings.length === 0) return EXIT.ok;
  io.stdout(
    [
      '',
      `Warnings (${warnings.length}${values.strict ? ', --strict: failing' : ''}):`,
      ...warnings.map((w) => `  ${w.where}: ${w.message}`),
    ].join('\n'),
  );
  return values.strict ? EXIT.failure : EXIT.ok;
}

/** Where the policy asks: whether the worker has a channel to ask in, as the explanation takes it. */
function channelLine(policy: Policy, channel: boolean): string {
  if (!channel) return 'none (--no-channel)';
  if (policy.notifications.slackWebhookUrl) return 'set in the policy (notifications.slackWebhookUrl)';
  return "assumed set (slackWebhookUrl in the worker's secret); --no-channel: as without one";
}

/**
 * `policy explain request.json [--at] [--paused] [--no-channel] [--policy] [--json]`: the worker's
 * own decide(), carried out as the worker does (askedWhere), in words.
 */
function policyExplain(rest: string[], io: CliIo): number {
  const { values, positionals, help } = parse(
    rest,
    {
      at: { type: 'string' },
      paused: { type: 'boolean' },
      'no-channel': { type: 'boolean' },
      policy: { type: 'string' },
      json: { type: 'boolean' },
    },
    POLICY_USAGE,
    { min: 1, max: 1 },
  );
  if (help) return printHelp(io, POLICY_USAGE);
  let at = io.now();
  if (typeof values.at === 'string') {
    const instant = isoInstant(values.at);
    if (!instant)
      throw new UsageError(
        `--at must be an ISO 8601 instant with an offset, e.g. 2026-11-23T10:00:00+01:00; got "${values.at}"`,
        POLICY_USAGE,
      );
    at = instant;
  }
  const file = policyFile(io, values.policy as string | undefined);
  const policy = loadPolicy(io, file);
  const raw = readJson(positionals[0] as string, io, 'request');
  const parsed = actionRequestSchemas().actionRequest.safeParse(raw);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => `  ${formatPath(issue.path)}: ${issue.message}`);
    throw new CommandError(`${positionals[0]} is not a valid action request:\n${lines.join('\n')}`);
  }
  const request: ActionRequest = parsed.data;
  // The worker dead-letters such a request before the policy sees it: said, so that the decision below is not taken for its fate.
  const future = futureDated(request, at);
  const refused = future ? { rule: 'requested-in-future', reason: future } : undefined;
  const paused = values.paused === true;
  const channel = values['no-channel'] !== true;
  const contradiction = channelContradiction(policy, channel);
  if (contradiction) throw new CommandError(`--no-channel cannot hold: ${contradiction}`);
  const decided = decide(policy, {
    request,
    now: at,
    pause: paused
      ? { paused: true, by: 'autopilot policy explain --paused', since: at.toISOString() }
      : { paused: false },
  });
  const { decision, notAsked } = asDeployed(decided, channel, request);
  const policyAsked = notAsked ? { policyOutcome: decided.outcome, notAsked } : {};
  if (values.json) {
    const head = { at: at.toISOString(), paused, channel, ...(refused ? { refused } : {}) };
    io.stdout(JSON.stringify({ ...head, ...policyAsked, decision }, null, 2));
    return EXIT.ok;
  }
  const local = new Intl.DateTimeFormat('en-GB', {
    timeZone: policy.timezone,
    weekday: 'short',
    hour: '2-digit',
    minute: '2-digit',
  }).format(at);
  io.stdout(
    [
      `request   ${request.action} ${actionTarget(request)}, asked by ${requesterKey(request.requestedBy)} at ${request.requestedAt}`,
      `at        ${at.toISOString()} (${local} ${policy.timezone})${paused ? ', paused' : ''}`,
      `policy    ${file}`,
      ...(refused
        ? [`REFUSED   the worker would dead-letter it before deciding (${refused.rule}): ${refused.reason}`]
        : []),
      `outcome   ${decision.outcome}`,
      `rule      ${decision.rule}`,
      `reason    ${decision.reason}`,
      ...(decided.outcome === 'ask' ? [`channel   ${channelLine(policy, channel)}`] : []),
      ...(decision.deferUntil ? [`again at  ${decision.deferUntil.toISOString()}`] : []),
      ...(decision.dryRun ? ['dry run   yes: decided and recorded, nothing changes'] : []),
      '',
      describeDecision(decision),
    ]
      // Request fields (a requester id, group names) come from outside, and the reason repeats
      // them: an escape sequence would drive the terminal, a newline forge a line.
      .map(printable)
      .join('\n'),
  );
  return EXIT.ok;
}

export async function policyCommand(args: string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === 'check') return policyCheck(rest, io);
  if (sub === 'test') return (await import('./policy-test.js')).policyTestCommand(rest, io);
  if (sub === 'diff') return (await import('./policy-diff.js')).policyDiffCommand(rest, io);
  if (sub === 'replay') return (await import('./policy-replay.js')).policyReplayCommand(rest, io);
  if (sub === 'explain') return policyExplain(rest, io);
  if (sub === undefined)
    throw new UsageError('missing policy command: check, explain, test, diff or replay', POLICY_USAGE);
  if (sub === '--help' || sub === '-h' || sub === 'help') return printHelp(io, POLICY_USAGE);
  throw new UsageError(`unknown policy command: ${sub}`, POLICY_USAGE);
}
