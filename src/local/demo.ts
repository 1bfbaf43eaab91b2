/**
 * `npm run demo`: the story, against the running local stack (`npm start` in another
 * terminal). A person asks for status and a read in Slack, approves a phase, and a CI job
 * asks for another approval on the queue; then the decisions and the replies are shown as
 * they reach the Slack receiver; last, a chat request forged on the queue is refused. Signs
 * with SLACK_SIGNING_SECRET or the local default. A step whose outcome does not come stops the
 * demo with exit 1: a story that silently skips its point would pass for one that showed it.
 */
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

import { ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import type { ActionRequest } from '../actions/request.js';
import { optionalEnv } from '../config/env.js';
import { createSqsClient, sendActionRequest, sqsSafeJson } from '../queue/actions-queue.js';
import { assertStackAnswers, type Endpoints, readEndpoints } from './endpoints.js';
import { LOCAL_SIGNING_SECRET, sendSigned, signedInteraction, signedSlashCommand } from './sign.js';
import { describeSlackMessage, type ReceivedPost } from './slack-receiver.js';

const out = (text = '') => process.stdout.write(`${text}\n`);
/** A step that did not happen: the demo stops, says which and exits 1. */
const failed = (why: string): never => {
  throw new Error(why);
};
const indent = (text: string) =>
  text
    .split('\n')
    .map((line) => `    ${line}`)
    .join('\n');

async function posts(endpoints: Endpoints, since: number): Promise<ReceivedPost[]> {
  const response = await fetch(`${endpoints.slackReceiverUrl}/posts?since=${since}`);
  return (await response.json()) as ReceivedPost[];
}

/** Prints every new post as it arrives; resolves with the first matching one (or undefined after 20 s). */
function watcher(endpoints: Endpoints, since: number) {
  const seen = new Set<number>();
  const matched = new Set<number>();
  return async (predicate: (post: ReceivedPost) => boolean): Promise<ReceivedPost | undefined> => {
    const deadline = Date.now() + 20_000;
    while (Date.now() < deadline) {
      for (const post of await posts(endpoints, since)) {
        if (!seen.has(post.seq)) {
          seen.add(post.seq);
          const where = post.path.startsWith('/response/') ? 'reply to the person' : 'audit channel';
          out(`\n  → ${where} (${post.path})`);
          out(indent(describeSlackMessage(post.body)));
        }
        if (!matched.has(post.seq) && predicate(post)) {
          matched.add(post.seq);
          return post;
        }
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    return undefined;
  };
}

async function slash(endpoints: Endpoints, secret: string, text: string, responseUrl: string) {
  out(`\n$ /autopilot ${text}        (as U0ADMIN in T0001, signed)`);
  const response = await sendSigned(
    signedSlashCommand(endpoints.webhookUrl, secret, {
      text,
      userId: 'U0ADMIN',
      teamId: 'T0001',
      responseUrl,
    }),
  );
  const body = await response.text();
  let shown = body;
  try {
    shown = describeSlackMessage(JSON.parse(body));
  } catch {
    // not JSON: show it as it came
  }
  out(`  ← ${response.status}`);
  out(indent(shown.length > 1200 ? `${shown.slice(0, 1200)}…` : shown));
  if (!response.ok) {
    const hint = response.status === 401 ? " (sign with the stack's SLACK_SIGNING_SECRET)" : '';
    failed(`the webhook answered /autopilot ${text} with ${response.status}${hint}`);
  }
}

/** Step 6: a chat request forged by a plain SQS client is refused (the requester is not proven). */
async function forgedRequest(endpoints: Endpoints, run: string): Promise<void> {
  out('\n6. Someone with queue access forges a chat request as the admin: archive new_checkout_copy');
  const requestId = `demo-${run}-forged`;
  const sqs = createSqsClient({ endpoint: endpoints.sqsEndpoint });
  try {
    const body = {
      version: 1,
      action: 'archive_config',
      configId: 'new_checkout_copy',
      reason: 'forged',
      requestedBy: { source: 'slack', id: 'U0ADMIN' },
      requestedAt: new Date().toISOString(),
      requestId,
    };
    await sqs.send(new SendMessageCommand({ QueueUrl: endpoints.queueUrl, MessageBody: sqsSafeJson(body) }));
    out('$ aws sqs send-message … \'{"requestedBy":{"source":"slack","id":"U0ADMIN"}, …}\'');
    const deadline = Date.now() + 20_000;
    while (Date.now() < deadline) {
      const { Messages = [] } = await sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: endpoints.dlqUrl,
          MaxNumberOfMessages: 10,
          WaitTimeSeconds: 5,
          VisibilityTimeout: 0,
          MessageAttributeNames: ['All'],
        }),
      );
      const ours = Messages.find((m) => m.Body?.includes(requestId));
      if (ours) {
        const reason = ours.MessageAttributes?.error?.StringValue ?? '(no reason)';
        out(`  → DLQ: ${reason}`);
        if (!reason.startsWith('requester not proven'))
          failed(`the forged request reached the DLQ for another reason: ${reason}`);
        out('    nothing was archived: only the webhook can vouch for slack: requesters');
        return;
      }
    }
    failed('the forged request did not reach the DLQ within 20 s: is the worker running?');
  } finally {
    sqs.destroy();
  }
}

async function main(): Promise<void> {
  // As the CLI's --local: AUTOPILOT_ENDPOINTS_FILE, else .local/endpoints.json.
  const endpoints = readEndpoints(process.env.AUTOPILOT_ENDPOINTS_FILE || undefined);
  await assertStackAnswers(endpoints);
  if (!endpoints.webhookUrl) throw new Error('the running stack has no webhook (see its banner)');
  // Empty is unset, as the stack reads it (src/config/env.ts): the stack then verifies with the local default.
  const secret = optionalEnv('SLACK_SIGNING_SECRET') ?? LOCAL_SIGNING_SECRET;
  const run = Date.now().toString(36);
  const start = Math.max(0, ...(await posts(endpoints, 0)).map((p) => p.seq));
  const responseUrl = `${endpoints.slackReceiverUrl}/response/demo-${run}`;

  out('console-autopilot demo — against the running local stack');
  out('1. Reads answer at once, in Slack');
  await slash(endpoints, secret, 'status', responseUrl);
  await slash(endpoints, secret, 'segments', responseUrl);

  out('\n2. A person approves a phase: the webhook queues it, the worker decides and replies');
  await slash(endpoints, secret, 'approve trg_6 ph_2 demo: ramp looks good', responseUrl);

  out('\n3. A CI job asks for an approval straight on the queue (the policy decides: office hours for ci:*)');
  const request: ActionRequest = {
    version: 1,
    action: 'approve_phase',
    triggerId: 'trg_8',
    phaseId: 'ph_3',
    requestedBy: { source: 'ci', id: 'github-actions/deploy.yml' },
    requestedAt: new Date().toISOString(),
    reason: 'smoke tests green',
    requestId: `demo-${run}-ci`,
  };
  const sqs = createSqsClient({ endpoint: endpoints.sqsEndpoint });
  try {
    const messageId = await sendActionRequest(sqs, endpoints.queueUrl, request);
    out('$ autopilot enqueue approve trg_8 ph_3 --requested-by ci:github-actions/deploy.yml');
    out(`  ← message ${messageId}`);
  } finally {
    sqs.destroy();
  }

  out('\n4. Decisions and replies, as they reach Slack (the local receiver):');
  const watch = watcher(endpoints, start);
  const approveReply = await watch((p) => p.path === `/response/demo-${run}`);
  if (!approveReply)
    failed("no reply to the approval within 20 s: is the worker running? see the stack's banner");
  const ciNotice = await watch(
    (p) => p.path === '/channel' && describeSlackMessage(p.body).includes('trg_8'),
  );
  if (!ciNotice) failed('no channel post about the CI request within 20 s');

  out('\n5. Automation asks a person: a nightly CI job wants trg_5 ph_2; the policy says "ask"');
  const sqs2 = createSqsClient({ endpoint: endpoints.sqsEndpoint });
  try {
    await sendActionRequest(sqs2, endpoints.queueUrl, {
      version: 1,
      action: 'approve_phase',
      triggerId: 'trg_5',
      phaseId: 'ph_2',
      // Only the sweeper can vouch for `schedule:`; a CI job speaks as `ci:` (README, "Requesters").
      requestedBy: { source: 'ci', id: 'nightly-promotion' },
      requestedAt: new Date().toISOString(),
      requestId: `demo-${run}-ask`,
    });
  } finally {
    sqs2.destroy();
  }
  const question = await watch(
    (p) => JSON.stringify(p.body).includes('autopilot_approve') && JSON.stringify(p.body).includes('trg_5'),
  );
  const button = question
    ? (
        question.body as { blocks?: Array<{ elements?: Array<{ action_id?: string; value?: string }> }> }
      ).blocks
        ?.flatMap((b) => b.elements ?? [])
        .find((e) => e.action_id === 'autopilot_approve')
    : undefined;
  if (button?.value) {
    out('\n$ (U0ADMIN clicks [Approve] in the channel, signed like Slack)');
    const response = await sendSigned(
      signedInteraction(endpoints.webhookUrl, secret, {
        userId: 'U0ADMIN',
        teamId: 'T0001',
        actionId: 'autopilot_approve',
        value: button.value,
        responseUrl: `${endpoints.slackReceiverUrl}/response/demo-${run}-click`,
      }),
    );
    out(`  ← ${response.status}`);
    if (!response.ok) failed(`the webhook answered the Approve click with ${response.status}`);
    // The webhook first replaces the message ("approved by …, queued"); then the worker's outcome.
    const outcome = await watch(
      (p) => p.path === `/response/demo-${run}-click` && JSON.stringify(p.body).includes('Done'),
    );
    if (!outcome) failed('no outcome for the approved request within 20 s');
  } else {
    failed(
      'no question with buttons reached the channel within 20 s (an earlier demo run may have ' +
        'approved trg_5 ph_2 already: restart `npm start` for a fresh sandbox)',
    );
  }
  await forgedRequest(endpoints, run);
  out(
    '\nMore: npx autopilot policy explain <request.json> --at <time>; npx autopilot sweep --dry-run --local',
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`demo: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
