/**
 * Review (what people read in Slack): Slack refuses a whole message (`invalid_blocks`) when one
 * block passes its limits (a section's or a context element's text: 3000 characters). The worker
 * put untrusted text in its posts' blocks whole: a request's reason (escaping makes `&` five
 * characters), the platform's error message, a request's group names. A question whose reason
 * ran long was never seen (each copy retried the post until the request was dead-lettered); an
 * outcome with a long error or many long group names was refused, and its end never told.
 */
import { describe, expect, it } from 'vitest';
import { makeApiError } from '../../src/console/errors.js';
import { readFinal } from '../../src/state/audit.js';
import { listHeld } from '../../src/state/held.js';
import { basePolicy, benchResetEachTest, copyTrigger } from './fixture.js';

const bench = benchResetEachTest();

interface Text {
  text?: string;
}
interface Block {
  type: string;
  text?: Text;
  fields?: Text[];
  elements?: Array<Text & { type: string; value?: string; text?: Text | string }>;
}

/** Where a message passes Slack's Block Kit limits (none: Slack takes it). */
function overLimits(body: { blocks?: unknown[] }): string[] {
  const blocks = (body.blocks ?? []) as Block[];
  const over: string[] = [];
  if (blocks.length > 50) over.push(`${blocks.length} blocks`);
  for (const [i, block] of blocks.entries()) {
    if (block.type === 'section' && (block.text?.text?.length ?? 0) > 3000)
      over.push(`block ${i}: section text of ${block.text?.text?.length}`);
    for (const field of block.fields ?? [])
      if ((field.text?.length ?? 0) > 2000) over.push(`block ${i}: field of ${field.text?.length}`);
    for (const element of block.elements ?? []) {
      if (block.type === 'context' && typeof element.text === 'string' && element.text.length > 3000)
        over.push(`block ${i}: context element of ${element.text.length}`);
      if (element.type === 'button') {
        const label = (element.text as Text | undefined)?.text ?? '';
        if (label.length > 75) over.push(`block ${i}: button text of ${label.length}`);
        if ((element.value?.length ?? 0) > 2000)
          over.push(`block ${i}: button value of ${element.value?.length}`);
      }
    }
  }
  return over;
}

function postsAbout(requestId: string, from: number) {
  return bench.slack.posts.slice(from).filter((p) => JSON.stringify(p.body).includes(requestId));
}

describe('posts built from long untrusted text stay within what Slack takes', () => {
  it('asks a question whose reason, escaped, runs past a section', async () => {
    copyTrigger(bench, 'trg_long_reason');
    const from = bench.slack.posts.length;
    // A check report as the reason (1,900 characters of the 2,000 a request takes): `&&`, `<`, `>`.
    const reason = 'lint && test && build: p95 < 200ms; '.repeat(60).slice(0, 1900);
    await bench.send({
      triggerId: 'trg_long_reason',
      phaseId: 'ph_1',
      requestId: 'long-reason-ask',
      requestedBy: { source: 'schedule', id: 'nightly' },
      reason,
    });
    expect(await bench.run(bench.worker(), await bench.receive())).toEqual({ batchItemFailures: [] });
    expect((await listHeld(bench.table)).find((h) => h.requestId === 'long-reason-ask')?.why).toBe('ask');
    const [question] = postsAbout('long-reason-ask', from);
    expect(question?.path).toBe('/services/channel');
    expect(overLimits(question!.body)).toEqual([]);
    // Still the question, with its buttons.
    expect(JSON.stringify(question!.body)).toContain('autopilot_approve');
  });

  it('tells the end of a request the platform refused with a long message', async () => {
    const from = bench.slack.posts.length;
    const worker = bench.worker({
      client: {
        releasePipelineTriggers: { approve: async () => ({}) },
        experiments: { disableGroups: async () => ({}) },
        dynamicConfigs: {
          archive: async () => {
            throw makeApiError({
              status: 400,
              headers: {},
              method: 'POST',
              path: '/console/v1/dynamic_configs/cfg_1/archive',
              body: {
                status: 400,
                message: 'Invalid archive request',
                errors: Array.from({ length: 40 }, (_, i) => ({
                  property: `rules[${i}].conditions`,
                  errorMessage: 'condition references a gate that is <archived> & cannot be evaluated',
                })),
              },
            });
          },
        },
      },
    });
    await bench.send({
      action: 'archive_config',
      configId: 'cfg_refused',
      reason: 'unused',
      requestId: 'long-error-archive',
      requestedBy: { source: 'slack', id: 'U0ADMIN' },
      reply: {
        slackResponseUrl: bench.slack.url('/actions/T0001/1/refused'),
        issuedAt: bench.clock.now.toISOString(),
      },
    });
    expect(await bench.run(worker, await bench.receive())).toEqual({ batchItemFailures: [] });
    expect(await readFinal(bench.table, 'long-error-archive')).toMatchObject({ result: 'rejected' });
    const told = postsAbout('long-error-archive', from);
    expect(told.map((p) => p.path)).toContain('/actions/T0001/1/refused');
    for (const post of told) expect(overLimits(post.body)).toEqual([]);
  });

  it('tells the end of a disable_groups request with many long group names', async () => {
    const from = bench.slack.posts.length;
    const worker = bench.worker({
      policy: basePolicy(bench.slack.origin),
      client: {
        releasePipelineTriggers: { approve: async () => ({}) },
        experiments: { disableGroups: async () => ({}) },
        dynamicConfigs: { archive: async () => ({}) },
      },
    });
    // 20 groups of 150 characters: the request takes 50 of 200.
    const groupNames = Array.from({ length: 20 }, (_, i) => `group_${i}_${'x'.repeat(140)}`);
    await bench.send({
      action: 'disable_groups',
      experimentId: 'exp_long_groups',
      groupNames,
      requestId: 'long-groups-done',
      requestedBy: { source: 'slack', id: 'U0ADMIN' },
      reply: {
        slackResponseUrl: bench.slack.url('/actions/T0001/1/groups'),
        issuedAt: bench.clock.now.toISOString(),
      },
    });
    expect(await bench.run(worker, await bench.receive())).toEqual({ batchItemFailures: [] });
    expect(await readFinal(bench.table, 'long-groups-done')).toMatchObject({ result: 'groups-disabled' });
    const told = postsAbout('long-groups-done', from);
    expect(told.map((p) => p.path)).toContain('/actions/T0001/1/groups');
    for (const post of told) expect(overLimits(post.body)).toEqual([]);
  });
});
