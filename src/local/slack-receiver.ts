/**
 * A stand-in for Slack's side of the wire: the local stack points response URLs and the
 * notifications webhook here, and this prints what the worker and sweeper would have posted
 * to Slack. It keeps the last posts and serves them at `GET /posts` (loopback only) so the
 * demo and the end-to-end test can read the replies. Its origin goes into
 * `SLACK_REPLY_ORIGINS`, the only way a non-Slack origin is ever posted to.
 */
import { Hono } from 'hono';
import { type ServedApp, serveApp } from './http.js';
import { printable, printableLine } from './printable.js';

export interface ReceivedPost {
  seq: number;
  at: string;
  /** `/response/<id>` for response URLs, `/channel` for the notifications webhook. */
  path: string;
  body: unknown;
}

export interface SlackReceiver {
  url: string;
  origin: string;
  /** A response URL at this receiver, unique per `id`. */
  responseUrl(id: string): string;
  channelUrl: string;
  posts(): ReceivedPost[];
  /** Resolves with the first post matching `predicate`, or rejects after `timeoutMs`. */
  waitFor(predicate: (post: ReceivedPost) => boolean, timeoutMs?: number): Promise<ReceivedPost>;
  close(): Promise<void>;
}

export interface SlackReceiverOptions {
  port?: number;
  /** How many posts to keep (oldest dropped first). */
  keep?: number;
  /** Where to print each post; false to stay quiet (tests). */
  print?: false | ((line: string) => void);
}

/** The texts one Block Kit block shows: its text, its fields, its elements (buttons in brackets). */
function blockTexts(block: Record<string, unknown>): string[] {
  const parts: string[] = [];
  const text = block.text as { text?: unknown } | undefined;
  if (typeof text?.text === 'string') parts.push(text.text);
  const fields = Array.isArray(block.fields) ? (block.fields as Array<{ text?: unknown }>) : [];
  for (const field of fields) if (typeof field.text === 'string') parts.push(field.text);
  const elements = Array.isArray(block.elements) ? (block.elements as Array<Record<string, unknown>>) : [];
  for (const element of elements) {
    const label = (element.text as { text?: unknown } | undefined)?.text ?? element.text;
    if (typeof label === 'string') parts.push(block.type === 'actions' ? `[${label}]` : label);
  }
  return parts;
}

/** Slack messages in plain words (printable): the blocks' texts when there are blocks, else `text`. */
export function describeSlackMessage(body: unknown): string {
  return printable(describeRaw(body));
}

function describeRaw(body: unknown): string {
  if (typeof body !== 'object' || body === null) return String(body);
  const message = body as { text?: unknown; blocks?: unknown };
  const parts = Array.isArray(message.blocks)
    ? (message.blocks as Array<Record<string, unknown>>).flatMap(blockTexts)
    : typeof message.text === 'string'
      ? [message.text]
      : [];
  return parts.length > 0 ? parts.join('\n') : JSON.stringify(body);
}

export async function startSlackReceiver(options: SlackReceiverOptions = {}): Promise<SlackReceiver> {
  const keep = options.keep ?? 500;
  const print =
    options.print === false
      ? undefined
      : (options.print ?? ((line: string) => process.stdout.write(`${line}\n`)));
  const posts: ReceivedPost[] = [];
  const waiters = new Set<{ predicate: (p: ReceivedPost) => boolean; resolve: (p: ReceivedPost) => void }>();
  let seq = 0;

  const app = new Hono();
  app.get('/posts', (c) => {
    const since = Number(c.req.query('since') ?? 0);
    return c.json(posts.filter((p) => p.seq > since));
  });
  app.post('*', async (c) => {
    const text = await c.req.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // Slack accepts only JSON here; keep what came so the mistake is visible.
    }
    seq += 1;
    const post: ReceivedPost = { seq, at: new Date().toISOString(), path: c.req.path, body };
    posts.push(post);
    if (posts.length > keep) posts.shift();
    // The path too comes from outside, percent-decoded by Hono (`%1b`, `%0a`): printable, on one line.
    const where = printableLine(post.path);
    print?.(`\n── to Slack ${where} ──\n${describeSlackMessage(body)}\n`);
    for (const waiter of waiters) {
      if (waiter.predicate(post)) {
        waiters.delete(waiter);
        waiter.resolve(post);
      }
    }
    // Slack answers a response_url or incoming-webhook post with a plain "ok".
    return c.text('ok');
  });

  const served: ServedApp = await serveApp(app, { port: options.port ?? 0 });
  return {
    url: served.url,
    origin: new URL(served.url).origin,
    channelUrl: `${served.url}/channel`,
    responseUrl: (id) => `${served.url}/response/${encodeURIComponent(id)}`,
    posts: () => [...posts],
    waitFor(predicate, timeoutMs = 10_000) {
      const found = posts.find(predicate);
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const waiter = {
          predicate,
          resolve: (p: ReceivedPost) => {
            clearTimeout(timer);
            resolve(p);
          },
        };
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          reject(new Error(`no matching post reached the Slack receiver within ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.add(waiter);
      });
    },
    close: () => served.close(),
  };
}
