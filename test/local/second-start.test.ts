/**
 * A second `npm start` while one runs (README, "Local stack"). Told "set PORT=<free port>" by the
 * first refusal, a user starts a second stack on the same `.local/`: it emptied the running
 * stack's metrics file before it failed (or, on a free port, replaced its endpoints file and
 * removed it on exit, so the demo and `--local` said "not running" while the first still ran).
 * It must refuse, naming the running stack, and leave the running stack's files alone.
 */
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootLocalStack, type LocalStack, type LocalStackOptions } from '../../src/local/stack.js';

const dir = mkdtempSync(join(tmpdir(), 'autopilot-second-start-'));
const quiet: LocalStackOptions = {
  sweepIntervalSeconds: false,
  release: { intervalSeconds: false },
  worker: { autoStart: false },
  env: { LOG_LEVEL: 'error' },
  receiver: { print: false },
};
let first: LocalStack;

beforeAll(async () => {
  first = await bootLocalStack({ port: 0, stateDir: dir, writeEndpointsFile: true, ...quiet });
});
afterAll(async () => {
  await first?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('a second local stack on the same state directory', () => {
  it('is refused before it touches the running stack’s endpoints or metrics', async () => {
    const endpointsFile = join(dir, 'endpoints.json');
    const metricsFile = join(dir, 'metrics.jsonl');
    const endpointsBefore = readFileSync(endpointsFile, 'utf8');
    appendFileSync(metricsFile, '{"metric":"kept"}\n');

    let second: LocalStack | undefined;
    const booted = bootLocalStack({ port: 0, stateDir: dir, writeEndpointsFile: true, ...quiet }).then(
      (stack) => {
        second = stack;
        return stack;
      },
    );
    try {
      await expect(booted).rejects.toThrow(/a local stack is already running/);
    } finally {
      await second?.stop();
    }
    expect(readFileSync(metricsFile, 'utf8')).toBe('{"metric":"kept"}\n');
    expect(readFileSync(endpointsFile, 'utf8')).toBe(endpointsBefore);
  });

  it('starts over a stale endpoints file left by a stack that was killed', async () => {
    const staleDir = mkdtempSync(join(tmpdir(), 'autopilot-stale-start-'));
    // A port nothing listens on: the stack that wrote this file is gone.
    writeFileSync(
      join(staleDir, 'endpoints.json'),
      JSON.stringify({ ...first.endpoints, slackReceiverUrl: 'http://127.0.0.1:1' }),
    );
    const stack = await bootLocalStack({ port: 0, stateDir: staleDir, writeEndpointsFile: true, ...quiet });
    try {
      expect(JSON.parse(readFileSync(join(staleDir, 'endpoints.json'), 'utf8')).webhookUrl).toBe(
        stack.endpoints.webhookUrl,
      );
    } finally {
      await stack.stop();
      rmSync(staleDir, { recursive: true, force: true });
    }
  });
});
