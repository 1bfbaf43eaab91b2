/**
 * Slack requests as Slack sends them: form-encoded slash commands and interaction payloads,
 * signed with v0 HMAC-SHA256 over `v0:{timestamp}:{body}`.
 */
import { createHmac } from 'node:crypto';

export const SIGNING_SECRET = 'test-signing-secret-0123456789abcdef';

export function sign(secret: string, timestamp: string, body: string | Buffer): string {
  const hmac = createHmac('sha256', secret);
  hmac.update(`v0:${timestamp}:`);
  hmac.update(body);
  return `v0=${hmac.digest('hex')}`;
}

export interface CommandFields {
  text?: string;
  userId?: string;
  teamId?: string;
  command?: string;
  responseUrl?: string;
  triggerId?: string;
}

let triggerSeq = 0;

/** The form body of a slash command (every field Slack sends). */
export function commandBody(fields: CommandFields = {}): string {
  return new URLSearchParams({
    token: 'deprecated-verification-token',
    team_id: fields.teamId ?? 'T0001',
    team_domain: 'acme',
    channel_id: 'C0RELEASE',
    channel_name: 'releases',
    user_id: fields.userId ?? 'U0ADMIN',
    user_name: 'admin',
    command: fields.command ?? '/autopilot',
    text: fields.text ?? '',
    api_app_id: 'A0AUTOPILOT',
    is_enterprise_install: 'false',
    response_url: fields.responseUrl ?? 'https://hooks.slack.com/commands/T0001/1234/abcd',
    trigger_id: fields.triggerId ?? `13345224609.738474920.${++triggerSeq}`,
  }).toString();
}

/** The form body of a block_actions interaction. */
export function interactionBody(payload: unknown): string {
  return new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
}

export function blockActionsPayload(options: {
  actionId: string;
  value: string;
  userId?: string;
  teamId?: string;
  responseUrl?: string;
}) {
  return {
    type: 'block_actions',
    user: { id: options.userId ?? 'U0ADMIN', username: 'admin', team_id: options.teamId ?? 'T0001' },
    api_app_id: 'A0AUTOPILOT',
    token: 'deprecated-verification-token',
    container: { type: 'message', message_ts: '1790000000.000100', channel_id: 'C0RELEASE' },
    trigger_id: `13345224609.738474920.${++triggerSeq}`,
    team: { id: options.teamId ?? 'T0001', domain: 'acme' },
    channel: { id: 'C0RELEASE', name: 'releases' },
    response_url: options.responseUrl ?? 'https://hooks.slack.com/actions/T0001/5678/efgh',
    actions: [
      {
        action_id: options.actionId,
        block_id: 'ask',
        value: options.value,
        type: 'button',
        action_ts: '1790000001.000200',
      },
    ],
  };
}

export interface SignedOptions {
  secret?: string;
  /** Epoch seconds; default now. */
  timestamp?: number | string;
  extraHeaders?: Record<string, string>;
}

/** Headers of a signed Slack request for `body`. */
export function slackHeaders(body: string | Buffer, options: SignedOptions = {}): Record<string, string> {
  const timestamp = String(options.timestamp ?? Math.floor(Date.now() / 1000));
  return {
    'content-type': 'application/x-www-form-urlencoded',
    'x-slack-request-timestamp': timestamp,
    'x-slack-signature': sign(options.secret ?? SIGNING_SECRET, timestamp, body),
    ...options.extraHeaders,
  };
}

/** A signed POST as a `Request`, for `app.request()`. */
export function signedRequest(path: string, body: string | Buffer, options: SignedOptions = {}): Request {
  return new Request(`http://localhost${path}`, {
    method: 'POST',
    headers: slackHeaders(body, options),
    body: typeof body === 'string' ? body : new Uint8Array(body),
  });
}
