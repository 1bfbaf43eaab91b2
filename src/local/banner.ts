/**
 * The banner `npm start` prints: every URL, what runs and what does not yet, and
 * ready-to-paste signed requests so a new user sees the system answer within a minute.
 */
import { relative } from 'node:path';
import { RESPECT_REVIEW_SETTINGS_VARIABLE, respectReviewSettingsFromEnv } from '../wiring/review-settings.js';
import type { Endpoints } from './endpoints.js';
import { TERMINAL_LOGS_VARIABLE, type TerminalLogs } from './logs.js';
import { signedSlashCommand, toCurl } from './sign.js';
import { LOCAL_SIGNING_SECRET, type LocalStack } from './stack.js';

export interface BannerOptions {
  sweepIntervalSeconds: number | false;
  visibilityTimeoutSeconds?: number;
  endpointsFile?: string;
  /** Whether the Console API key is the sandbox default (safe to show). */
  sandboxKey: boolean;
}

export function renderBanner(stack: LocalStack, options: BannerOptions): string {
  const e = stack.endpoints;
  const rel = (p: string) => relative(process.cwd(), p) || p;
  const lines: string[] = [];
  const row = (label: string, value: string) => lines.push(`  ${label.padEnd(16)}${value}`);
  lines.push('', 'console-autopilot — local stack', '');
  row('webhook', `${e.webhookUrl}   (POST /slack/commands, POST /slack/interactions, GET /health)`);
  const consoleNote =
    stack.components.sandbox === 'running'
      ? `embedded sandbox${options.sandboxKey ? ', key sandbox-key' : ''}${readOnlyKey(e)}`
      : 'from CONSOLE_API_BASE_URL';
  row('Console API', `${e.consoleApiBaseUrl}/console/v1   (${consoleNote})`);
  row('SQS (fauxqs)', e.sqsEndpoint);
  row('  actions queue', e.queueUrl);
  row('  DLQ', e.dlqUrl);
  row('DynamoDB', `${e.dynamodbEndpoint}   (dynalite, table ${e.tableName})`);
  row('Slack receiver', `${e.slackReceiverUrl}   (prints what would be posted to Slack; GET /posts)`);
  if (e.metricsFile)
    row('metrics', `${e.metricsFile}   (EMF lines since start; npx autopilot stats --local)`);
  if (e.logsDir && stack.logs)
    row('logs', `${e.logsDir}/<function>.jsonl   (${logsNote(stack.logs.terminal)})`);
  const source = stack.eventSource;
  row(
    'worker',
    `long-polls the queue like the event source mapping: batches of ${source.batchSize}, ${source.concurrency} pollers`,
  );
  if (options.visibilityTimeoutSeconds !== undefined)
    row(
      '  retries',
      `failed records return after ${options.visibilityTimeoutSeconds} s (VISIBILITY_TIMEOUT_SECONDS); 5 receives → DLQ`,
    );
  row('  reviews', reviewSettings(stack.env));
  row(
    'sweeper',
    options.sweepIntervalSeconds === false
      ? 'not scheduled'
      : `every ${options.sweepIntervalSeconds} s (SWEEP_INTERVAL_SECONDS), first run in a few seconds`,
  );
  row('policy', rel(stack.policyPath));
  if (stack.notifyReceiver)
    row('notifications', 'to the Slack receiver (SLACK_WEBHOOK_URL, a secret when deployed)');
  if (stack.signingSecret === LOCAL_SIGNING_SECRET)
    row('signing secret', `${LOCAL_SIGNING_SECRET}   (LOCAL ONLY: never configure a real Slack app with it)`);
  else row('signing secret', 'from SLACK_SIGNING_SECRET');
  if (options.endpointsFile) row('endpoints', rel(options.endpointsFile));

  const command = (text: string) =>
    toCurl(
      signedSlashCommand(e.webhookUrl, stack.signingSecret, {
        text,
        userId: 'U0ADMIN',
        teamId: 'T0001',
        responseUrl: stack.receiver.responseUrl('banner'),
      }),
    );
  lines.push(
    '',
    'Try it (signatures are valid for 5 minutes; `npx autopilot slack curl status` signs a fresh one):',
    '',
  );
  lines.push('# /autopilot status', command('status'), '');
  lines.push('# /autopilot approve trg_7 ph_2  (queued; the outcome prints under "to Slack")');
  lines.push(command('approve trg_7 ph_2 from the banner'));
  lines.push('', 'Also: `npm run demo` (the whole story), `npx autopilot --help`. Ctrl-C stops.', '');
  return lines.join('\n');
}

/** What the terminal shows of the functions' lines, and how to see the rest. */
function logsNote(terminal: TerminalLogs): string {
  return terminal === 'all'
    ? `every JSON log and metric line, printed here too: ${TERMINAL_LOGS_VARIABLE}=all`
    : `every JSON log and metric line; here only warnings and errors, ${TERMINAL_LOGS_VARIABLE}=all prints all`;
}

/** Whether the worker's mutations carry `x-respect-review-settings` (as the worker reads it). */
function reviewSettings(env: Record<string, string>): string {
  return respectReviewSettingsFromEnv(env)
    ? `respected: mutations carry x-respect-review-settings (${RESPECT_REVIEW_SETTINGS_VARIABLE}=false bypasses them)`
    : `BYPASSED: mutations are sent without x-respect-review-settings (${RESPECT_REVIEW_SETTINGS_VARIABLE}=false)`;
}

/** The embedded sandbox's read-only key (a public value): what the webhook, the sweeper and `--local` read with. */
function readOnlyKey(e: Endpoints): string {
  return e.sandboxReadOnlyApiKey ? `, read-only key ${e.sandboxReadOnlyApiKey}` : '';
}
