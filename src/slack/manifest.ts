/**
 * The Slack app manifest for a deployed webhook: the `/autopilot` slash command, interactivity
 * for the "ask a human" buttons, and the scopes they need (`commands`; `incoming-webhook` so
 * the install hands out the audit channel's URL for `notifications.slackWebhookUrl`).
 * Paste the JSON into https://api.slack.com/apps → Create New App → From a manifest.
 */

export class ManifestUsageError extends Error {
  override name = 'ManifestUsageError';
}

export interface SlackManifestOptions {
  /** The webhook's base URL (the stack output `WebhookUrl`); must be https. */
  url: string;
  /** @default '/autopilot' */
  command?: string;
  /** @default 'console-autopilot' */
  appName?: string;
}

export interface SlackManifest {
  _metadata: { major_version: number; minor_version: number };
  display_information: { name: string; description: string; background_color: string };
  features: {
    bot_user: { display_name: string; always_online: boolean };
    slash_commands: Array<{
      command: string;
      url: string;
      description: string;
      usage_hint: string;
      should_escape: boolean;
    }>;
  };
  oauth_config: { scopes: { bot: string[] } };
  settings: {
    interactivity: { is_enabled: boolean; request_url: string };
    org_deploy_enabled: boolean;
    socket_mode_enabled: boolean;
    token_rotation_enabled: boolean;
  };
}

/** The base URL without a trailing slash; a ManifestUsageError unless it is an https URL without query or fragment. */
export function webhookBaseUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ManifestUsageError(`--url must be an absolute https URL, got "${raw}"`);
  }
  if (url.protocol !== 'https:') {
    throw new ManifestUsageError(`--url must use https (Slack only posts to https endpoints), got "${raw}"`);
  }
  if (url.search || url.hash || url.username || url.password) {
    throw new ManifestUsageError(
      '--url must be the webhook base URL, without query, fragment or credentials',
    );
  }
  return url.href.replace(/\/+$/, '');
}

export function buildSlackManifest(options: SlackManifestOptions): SlackManifest {
  const base = webhookBaseUrl(options.url);
  const command = options.command ?? '/autopilot';
  if (!/^\/[a-z0-9_-]{1,31}$/.test(command)) {
    throw new ManifestUsageError(
      `--command must look like "/autopilot" (lower case, at most 32 characters), got "${command}"`,
    );
  }
  const name = options.appName ?? 'console-autopilot';
  // Named on purpose, so never empty: Slack refuses an app (and a bot user) without a name, at paste time.
  if (name.trim() === '')
    throw new ManifestUsageError('--name must not be empty (default: console-autopilot)');
  return {
    _metadata: { major_version: 1, minor_version: 1 },
    display_information: {
      name,
      description: 'Release approvals by policy, chat-ops and housekeeping for the Console API',
      background_color: '#1d2b3a',
    },
    features: {
      // Slack requires a bot user for an app that installs with bot scopes.
      bot_user: { display_name: name, always_online: false },
      slash_commands: [
        {
          command,
          url: `${base}/slack/commands`,
          description: 'Approve phases, pause automation, read roles, segments, metrics and events',
          usage_hint: 'help | approve <trigger> <phase> [reason] | pause | resume | status',
          // The webhook parses ids itself; escaping would turn them into <@U…>/<#C…> markup.
          should_escape: false,
        },
      ],
    },
    oauth_config: { scopes: { bot: ['commands', 'incoming-webhook'] } },
    settings: {
      interactivity: { is_enabled: true, request_url: `${base}/slack/interactions` },
      org_deploy_enabled: false,
      socket_mode_enabled: false,
      token_rotation_enabled: false,
    },
  };
}

export const MANIFEST_USAGE =
  'usage: npm run slack:manifest -- --url <https webhook base URL> [--command /autopilot] [--name console-autopilot]';

/** Parses `--url x`, `--url=x`, `--command`, `--name`; anything else is a usage error. */
export function parseManifestArgs(argv: readonly string[]): SlackManifestOptions {
  const values: Record<string, string> = {};
  const keys: Record<string, 'url' | 'command' | 'appName'> = {
    '--url': 'url',
    '--command': 'command',
    '--name': 'appName',
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    const [flag = '', inline] = arg.includes('=')
      ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)]
      : [arg];
    const key = keys[flag];
    if (!key) throw new ManifestUsageError(`unknown argument "${arg}"\n${MANIFEST_USAGE}`);
    const value = inline ?? argv[++i];
    if (value === undefined || value === '')
      throw new ManifestUsageError(`${flag} needs a value\n${MANIFEST_USAGE}`);
    values[key] = value;
  }
  if (!values.url) throw new ManifestUsageError(`--url is required\n${MANIFEST_USAGE}`);
  const options: SlackManifestOptions = { url: values.url };
  if (values.command) options.command = values.command;
  if (values.appName) options.appName = values.appName;
  return options;
}
