/**
 * Building Slack requests the way Slack builds them — form body, `X-Slack-Request-Timestamp`,
 * `X-Slack-Signature` = v0 HMAC-SHA256 of `v0:<ts>:<body>` — for the banner's copy-paste
 * `curl`, the demo and the end-to-end test. Local/dev only: the secret is the local one.
 */
import { createHmac } from 'node:crypto';

/** The local stack's signing secret when SLACK_SIGNING_SECRET is not set: local only, printed in the banner. */
export const LOCAL_SIGNING_SECRET = 'local-signing-secret';

export interface SlashCommand {
  text: string;
  userId: string;
  teamId: string;
  responseUrl: string;
  command?: string;
  userName?: string;
  channelId?: string;
  triggerId?: string;
}

export function slashCommandBody(command: SlashCommand): string {
  return new URLSearchParams({
    token: 'local-verification-token-unused',
    team_id: command.teamId,
    team_domain: 'local',
    channel_id: command.channelId ?? 'C0LOCAL',
    channel_name: 'autopilot-local',
    user_id: command.userId,
    user_name: command.userName ?? command.userId.toLowerCase(),
    command: command.command ?? '/autopilot',
    text: command.text,
    api_app_id: 'A0LOCAL',
    response_url: command.responseUrl,
    trigger_id: command.triggerId ?? `local.${Date.now()}`,
  }).toString();
}

/** The two Slack headers for `body`, signed with `secret` at `timestampSeconds`. */
export function slackSignatureHeaders(
  secret: string,
  body: string,
  timestampSeconds = Math.floor(Date.now() / 1000),
): Record<string, string> {
  const signature = createHmac('sha256', secret).update(`v0:${timestampSeconds}:${body}`).digest('hex');
  return {
    'x-slack-request-timestamp': String(timestampSeconds),
    'x-slack-signature': `v0=${signature}`,
  };
}

export interface SignedRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

export function signedSlashCommand(
  webhookUrl: string,
  secret: string,
  command: SlashCommand,
  timestampSeconds?: number,
): SignedRequest {
  return signedForm(`${webhookUrl}/slack/commands`, secret, slashCommandBody(command), timestampSeconds);
}

/** A form post as Slack sends it, signed with `secret`. */
function signedForm(url: string, secret: string, body: string, timestampSeconds?: number): SignedRequest {
  return {
    url,
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      ...slackSignatureHeaders(secret, body, timestampSeconds),
    },
    body,
  };
}

/** A button click as Slack posts it to the interactivity URL: form field `payload` = JSON. */
export function signedInteraction(
  webhookUrl: string,
  secret: string,
  click: { userId: string; teamId: string; actionId: string; value: string; responseUrl: string },
  timestampSeconds?: number,
): SignedRequest {
  const payload = {
    type: 'block_actions',
    team: { id: click.teamId, domain: 'local' },
    user: { id: click.userId, username: click.userId.toLowerCase(), team_id: click.teamId },
    api_app_id: 'A0LOCAL',
    response_url: click.responseUrl,
    trigger_id: `local.${Date.now()}`,
    actions: [{ type: 'button', action_id: click.actionId, value: click.value, block_id: 'autopilot' }],
  };
  const body = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
  return signedForm(`${webhookUrl}/slack/interactions`, secret, body, timestampSeconds);
}

const shellQuote = (value: string) => `'${value.replaceAll("'", `'\\''`)}'`;

/** A copy-paste `curl` for a signed request. */
export function toCurl(request: SignedRequest): string {
  const headers = Object.entries(request.headers).map(([k, v]) => `-H ${shellQuote(`${k}: ${v}`)}`);
  return ['curl -sS -X POST', shellQuote(request.url), ...headers, `--data ${shellQuote(request.body)}`].join(
    ' \\\n  ',
  );
}

export async function sendSigned(request: SignedRequest, fetchImpl: typeof fetch = fetch): Promise<Response> {
  return fetchImpl(request.url, { method: 'POST', headers: request.headers, body: request.body });
}
