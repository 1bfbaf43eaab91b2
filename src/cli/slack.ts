/**
 * `autopilot slack manifest --url <url>`: the Slack app manifest (slash command,
 * interactivity, scopes) for a deployed webhook, built by `src/slack/manifest.ts`.
 */
import { optionalEnv } from '../config/env.js';
import { LOCAL_SIGNING_SECRET, signedSlashCommand, toCurl } from '../local/sign.js';
import { buildSlackManifest, ManifestUsageError, webhookBaseUrl } from '../slack/manifest.js';
import { parse } from './args.js';
import { UsageError } from './errors.js';
import { type CliIo, EXIT, printHelp } from './io.js';
import { localEndpoints } from './local-endpoints.js';

export const SLACK_USAGE = `Usage:
  autopilot slack manifest --url <webhook base URL> [--name <app name>] [--command </autopilot>]
      Print the Slack app manifest (JSON) to paste at https://api.slack.com/apps →
      Create New App → From a manifest. The URL is the stack output WebhookUrl (https).
  autopilot slack curl <command text…> [--user U0ADMIN] [--team T0001]
      Print a signed, ready-to-paste curl for "/autopilot <text>" against the running local
      stack (signed with SLACK_SIGNING_SECRET, or the local default when it is unset or empty,
      as the stack reads it; valid for 5 minutes).`;

export async function slackCommand(args: string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === undefined) throw new UsageError('missing slack command: manifest or curl', SLACK_USAGE);
  if (sub === 'help' || sub === '--help' || sub === '-h') return printHelp(io, SLACK_USAGE);
  if (sub === 'curl') return slackCurl(rest, io);
  if (sub !== 'manifest') throw new UsageError(`unknown slack command: ${sub}`, SLACK_USAGE);
  const { values, help } = parse(
    rest,
    { url: { type: 'string' }, name: { type: 'string' }, command: { type: 'string' } },
    SLACK_USAGE,
    { min: 0, max: 0 },
  );
  if (help) return printHelp(io, SLACK_USAGE);
  if (typeof values.url !== 'string') throw new UsageError('--url is required', SLACK_USAGE);
  try {
    const manifest = buildSlackManifest({
      url: webhookBaseUrl(values.url),
      ...(typeof values.name === 'string' ? { appName: values.name } : {}),
      ...(typeof values.command === 'string' ? { command: values.command } : {}),
    });
    io.stdout(JSON.stringify(manifest, null, 2));
    return EXIT.ok;
  } catch (error) {
    if (error instanceof ManifestUsageError) throw new UsageError(error.message, SLACK_USAGE);
    throw error;
  }
}

function slackCurl(args: string[], io: CliIo): number {
  const { values, positionals, help } = parse(
    args,
    { user: { type: 'string' }, team: { type: 'string' } },
    SLACK_USAGE,
    { min: 1, max: 100 },
  );
  if (help) return printHelp(io, SLACK_USAGE);
  const endpoints = localEndpoints(io);
  if (!endpoints.webhookUrl) throw new UsageError('the running stack has no webhook', SLACK_USAGE);
  // The stack's own rule (src/local/start.ts): an empty variable is unset, so it verifies with the
  // local default; signing with "" would earn a 401.
  const request = signedSlashCommand(
    endpoints.webhookUrl,
    optionalEnv('SLACK_SIGNING_SECRET', io.env) ?? LOCAL_SIGNING_SECRET,
    {
      text: positionals.join(' '),
      userId: (values.user as string | undefined) ?? 'U0ADMIN',
      teamId: (values.team as string | undefined) ?? 'T0001',
      responseUrl: `${endpoints.slackReceiverUrl}/response/cli-${Date.now().toString(36)}`,
    },
    Math.floor(io.now().getTime() / 1000),
  );
  io.stdout(toCurl(request));
  return EXIT.ok;
}
