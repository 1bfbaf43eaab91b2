/**
 * The platform's error message and its field errors were joined with "; " whatever the message
 * ended with: the sandbox's (and the real platform's) sentence ends with a full stop, so a release
 * manager read "… has no group named nosuch_group.; group_names[0]: unknown group nosuch_group" in
 * the worker's reply and the audit trail, and the error's message added " — " after the stop.
 * They are joined tidily now: after a stop (or a colon, a semicolon) with a space, otherwise with
 * "; ", every word the platform said kept.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiError, BadRequestError, createConsoleClient } from '../../src/console/index.js';
import { type RunningSandbox, startSandbox } from '../../src/sandbox/index.js';
import { type ScriptedServer, startScriptedServer } from './helpers/scripted-server.js';

let sandbox: RunningSandbox;
let server: ScriptedServer;
beforeAll(async () => {
  [sandbox, server] = await Promise.all([startSandbox({ seed: 42 }), startScriptedServer()]);
});
afterAll(async () => {
  await Promise.all([sandbox?.close(), server?.close()]);
});

const client = (baseUrl: string) =>
  createConsoleClient({ baseUrl, apiKey: 'sandbox-key', maxRetries: 0, mutationBudget: false });

async function failWith(body: unknown): Promise<ApiError> {
  server.setScript(() => ({ status: 400, body }));
  return (await client(server.url)
    .segments.get('seg_1')
    .catch((e: unknown) => e)) as ApiError;
}

describe("the platform's message and field errors, joined", () => {
  it('reads as one sentence after another when the message ends with a full stop', async () => {
    const error = (await client(sandbox.url)
      .experiments.disableGroups('checkout_redesign', { group_names: ['nosuch_group'] })
      .catch((e: unknown) => e)) as ApiError;
    expect(error).toBeInstanceOf(BadRequestError);
    expect(error.said).toBe(
      'Experiment checkout_redesign has no group named nosuch_group. group_names[0]: unknown group nosuch_group',
    );
    expect(error.message).toBe(
      'POST /console/v1/experiments/checkout_redesign/disable_groups: 400 — ' +
        'Experiment checkout_redesign has no group named nosuch_group. group_names[0]: unknown group nosuch_group',
    );
  });

  it('never doubles punctuation, and keeps every word', async () => {
    const error = await failWith({
      message: 'Invalid request:  ',
      errors: [
        'phaseID must be the current phase!',
        { property: 'name', errorMessage: 'is required;' },
        { property: 'tags[0]', errorMessage: 'too long' },
        'see the docs',
      ],
    });
    expect(error.said).toBe(
      'Invalid request: phaseID must be the current phase! name: is required; tags[0]: too long; see the docs',
    );
    expect(error.message).toBe(`GET /console/v1/segments/seg_1: 400 — ${error.said}`);
    for (const text of [error.said ?? '', error.message]) expect(text).not.toMatch(/[.!?:;,]\s*[;—]/);
  });

  it('joins a message without a stop to its field errors with a semicolon', async () => {
    const error = await failWith({
      message: 'Invalid request',
      errors: [{ property: 'name', errorMessage: 'is required' }],
    });
    expect(error.said).toBe('Invalid request; name: is required');
    expect(error.message).toBe('GET /console/v1/segments/seg_1: 400 — Invalid request; name: is required');
  });
});
