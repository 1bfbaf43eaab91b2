/**
 * The handlers as deployed trust the policy their bundle was built with, and only that one. Each
 * handler is built with the deployed esbuild options (infra/bundling.ts, as the cold-start
 * benchmark builds it) next to its normalized policy.json, and started in a fresh `node`
 * process as Lambda starts it (cold init = importing the bundle).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bundledPolicy,
  esbuildOptions,
  HANDLER_ENTRIES,
  type HandlerName,
  REPO_ROOT,
  writeBundledPolicy,
} from '../../infra/bundling.js';
import type { NormalizedPolicyFile } from '../../src/wiring/policy-file.js';
import { LAMBDA_PROCESS_ENV } from '../helpers/lambda-process-env.js';

const HANDLERS = Object.keys(HANDLER_ENTRIES) as HandlerName[];
const work = mkdtempSync(join(tmpdir(), 'autopilot-bundled-policy-'));
let policy: NormalizedPolicyFile;
const outDir = (name: HandlerName) => join(work, name);

beforeAll(async () => {
  policy = bundledPolicy('policy.json');
  await Promise.all(
    HANDLERS.map(async (name) => {
      await build(
        esbuildOptions(join(REPO_ROOT, HANDLER_ENTRIES[name]), join(outDir(name), 'index.mjs'), policy),
      );
    }),
  );
}, 60_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

/**
 * Imports the bundle in a fresh process and reports the init error, if any, how many schemas
 * zod registered a description for, and how many zod objects were built. The policy schema
 * registers a description for each documented field as it is built (for the generated JSON
 * Schema), so `described: 0` means the policy schema was never built; zod keeps its global
 * registry on `globalThis.__zod_globalRegistry` and uses one set there first. zod has no public
 * count of the objects it builds, but each one (schema or check) gets its internals as a `_zod`
 * property defined with `Object.defineProperty` (`$constructor` in zod/v4/core), so
 * `zodObjects: 0` means the init built none: no Console API, action request or policy schema.
 */
const PROBE = `
const described = [];
globalThis.__zod_globalRegistry = {
  add(_schema, meta) { described.push(meta?.description); return this; },
  get() {}, has() { return false; }, remove() { return this; }, clear() { return this; },
};
let zodObjects = 0;
const define = Object.defineProperty;
Object.defineProperty = function (target, key, descriptor) {
  if (key === '_zod') zodObjects++;
  return define(target, key, descriptor);
};
let error;
try {
  const m = await import(process.argv[1]);
  if (typeof m.handler !== 'function') error = 'no handler export';
} catch (e) {
  error = String(e?.message ?? e);
}
// Node's Request, Response and Headers are lazy globals: the first read loads undici (about
// 14-18 ms on this machine), which a cold init does not need (the first request loads it).
const undiciLoaded = process.moduleLoadList.some((entry) => entry.includes('undici'));
process.stdout.write(JSON.stringify({ error, described: described.length, zodObjects, undiciLoaded }));
`;

type ColdStart = { error?: string; described: number; zodObjects: number; undiciLoaded: boolean };

function coldStart(name: HandlerName): ColdStart {
  const run = spawnSync(
    process.execPath,
    ['--input-type=module', '-e', PROBE, pathToFileURL(join(outDir(name), 'index.mjs')).href],
    {
      encoding: 'utf8',
      timeout: 20_000,
      env: {
        ...LAMBDA_PROCESS_ENV,
        AUTOPILOT_POLICY: join(outDir(name), 'policy.json'),
        CONSOLE_API_BASE_URL: 'http://127.0.0.1:9',
        AUTOPILOT_SECRET_ID: 'arn:aws:secretsmanager:eu-central-1:123456789012:secret:test-AbCdEf',
        WEBHOOK_REQUESTER_KEY_SECRET_ID: 'arn:aws:secretsmanager:eu-central-1:123456789012:secret:w-AbCdEf',
        SWEEPER_REQUESTER_KEY_SECRET_ID: 'arn:aws:secretsmanager:eu-central-1:123456789012:secret:s-AbCdEf',
        ACTIONS_QUEUE_URL: 'https://sqs.eu-central-1.amazonaws.com/123456789012/actions',
        DLQ_URL: 'https://sqs.eu-central-1.amazonaws.com/123456789012/dlq',
        STATE_TABLE_NAME: 'autopilot-state',
        LOG_LEVEL: 'error',
      },
    },
  );
  expect(run.status, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as ColdStart;
}

describe.each(HANDLERS)('the %s bundle', (name) => {
  it('has the digest of its normalized policy built in', () => {
    const code = readFileSync(join(outDir(name), 'index.mjs'), 'utf8');
    expect(code).toContain(JSON.stringify(policy.sha256));
    expect(code).not.toContain('__AUTOPILOT_VALIDATED_POLICY_SHA256__');
  });

  it('starts with the policy it was built with, without building any zod schema or loading undici', () => {
    writeBundledPolicy(outDir(name), policy);
    expect(coldStart(name)).toEqual({ described: 0, zodObjects: 0, undiciLoaded: false });
  });

  it('validates a policy file that differs by one byte, and fails the init with its zod path', () => {
    const file = writeBundledPolicy(outDir(name), {
      text: policy.text.replace('"Europe/Berlin"', '"Europe/Berlix"'),
    });
    const { error, described, zodObjects } = coldStart(name);
    expect(error).toContain(
      `policy file ${file} is not a valid policy: timezone: expected an IANA time zone such as Europe/Berlin`,
    );
    expect(described).toBeGreaterThan(0);
    // The count sees the objects the bundle builds: here, the policy schema's (~150).
    expect(zodObjects).toBeGreaterThan(100);
  });

  it('validates a valid policy file it was not built with, and starts', () => {
    const text = policy.text.replace('"maxDeferHours": 72', '"maxDeferHours": 48');
    expect(text).not.toBe(policy.text);
    writeBundledPolicy(outDir(name), { text });
    const { error, described, zodObjects } = coldStart(name);
    expect(error).toBeUndefined();
    expect(described).toBeGreaterThan(0);
    expect(zodObjects).toBeGreaterThan(100);
  });
});
