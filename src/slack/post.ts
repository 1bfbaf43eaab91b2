/**
 * Posting messages to Slack (incoming webhooks and interaction `response_url`s). A response
 * URL arrives inside a request, so it is user input: we only ever POST to Slack's own origin
 * (or, locally, to origins listed in `SLACK_REPLY_ORIGINS`), never follow redirects, and never
 * log the URL's path, which is a bearer capability. Slack being down must not fail the work
 * that is being reported, so nothing here throws: the caller gets a result.
 */

import { ConfigError } from '../config/env.js';
import { createNodeSend, type HttpSend } from '../http/send.js';
import { scrubDeep } from '../util/secret-scrub.js';

export const SLACK_ORIGIN = 'https://hooks.slack.com';

/** A Slack message: `text` is the notification fallback; `blocks` is Block Kit. */
export interface SlackMessage {
  text: string;
  blocks?: unknown[];
  response_type?: 'ephemeral' | 'in_channel';
  replace_original?: boolean;
}

export type PostResult =
  | { ok: true; status: number }
  | { ok: false; reason: 'refused' | 'http' | 'network'; status?: number; error: string };

export interface PostOptions {
  /** Default: one shared `node:http(s)` sender (see src/http/send.ts). */
  send?: HttpSend;
  /** Origins (scheme://host[:port]) allowed besides https://hooks.slack.com. */
  allowedOrigins?: readonly string[];
  timeoutMs?: number;
}

/**
 * The extra reply origins from `SLACK_REPLY_ORIGINS` (comma-separated), normalised to origins. An
 * entry that is not an http(s) URL stops the function at start, naming the variable: dropped, it
 * would refuse every reply to the origin meant, and it must never widen the allow-list either.
 */
export function replyOriginsFromEnv(value: string | undefined): string[] {
  if (!value) return [];
  const out: string[] = [];
  for (const [index, part] of value.split(',').entries()) {
    const trimmed = part.trim();
    if (!trimmed) continue;
    let url: URL | undefined;
    try {
      url = new URL(trimmed);
    } catch {
      url = undefined;
    }
    if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:'))
      // The entry is not echoed: a mistyped one may be a webhook URL, a credential.
      throw new ConfigError(
        `environment variable SLACK_REPLY_ORIGINS must list http(s) origins: entry ${index + 1} is not one`,
      );
    out.push(url.origin);
  }
  return out;
}

/** True when `url` may receive a POST: https://hooks.slack.com or one of `allowedOrigins`. */
export function isAllowedSlackUrl(url: string, allowedOrigins: readonly string[] = []): boolean {
  return allowedSlackUrl(url, allowedOrigins) !== undefined;
}

/** `url` parsed, when `isAllowedSlackUrl` allows it (one parse for callers that keep the URL). */
export function allowedSlackUrl(url: string, allowedOrigins: readonly string[] = []): URL | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if (parsed.username || parsed.password) return undefined;
  return parsed.origin === SLACK_ORIGIN || allowedOrigins.includes(parsed.origin) ? parsed : undefined;
}

/** Where a URL points, without its path (safe to log). */
export function describeUrl(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return '(invalid url)';
  }
}

let sharedSend: HttpSend | undefined;
function defaultSend(): HttpSend {
  sharedSend ??= createNodeSend();
  return sharedSend;
}

export async function postToSlack(
  url: string,
  message: SlackMessage,
  options: PostOptions = {},
): Promise<PostResult> {
  if (!isAllowedSlackUrl(url, options.allowedOrigins)) {
    return {
      ok: false,
      reason: 'refused',
      error: `refusing to post to ${describeUrl(url)}: not a Slack URL`,
    };
  }
  const send = options.send ?? defaultSend();
  try {
    // Redirects are never followed: a 3xx is reported as an HTTP failure like any other.
    const response = await send({
      method: 'POST',
      url,
      headers: { 'content-type': 'application/json' },
      // Nothing we post may carry a secret, in any encoding (a platform message quoted in a reply).
      body: JSON.stringify(scrubDeep(message)),
      timeoutMs: options.timeoutMs ?? 5_000,
    });
    if (response.status < 200 || response.status >= 300) {
      return {
        ok: false,
        reason: 'http',
        status: response.status,
        error: `Slack answered ${response.status}: ${response.text.slice(0, 200)}`,
      };
    }
    return { ok: true, status: response.status };
  } catch (error) {
    return {
      ok: false,
      reason: 'network',
      error: `cannot reach ${describeUrl(url)}: ${(error as Error).name}`,
    };
  }
}
