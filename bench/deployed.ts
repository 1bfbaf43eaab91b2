/**
 * The functions as deployed, run in fresh `node` processes of their own: each bundle built with the
 * esbuild options of infra/bundling.ts (the normalized policy beside it), then driven by
 * bench/fixtures/memory-load.mjs (Node, the bundle and a small driver, nothing else). Shared by the
 * memory benchmark (peak RSS under load) and the first-request benchmark (a cold start's first
 * complete request).
 */
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { bundledPolicy, esbuildOptions, REPO_ROOT, writeBundledPolicy } from '../infra/bundling.js';
import type { Emulators } from '../src/local/emulators.js';

const DRIVER = join(REPO_ROOT, 'bench', 'fixtures', 'memory-load.mjs');

/** What the driver reports at the end of its load. */
export interface DriverOutcome {
  /** Webhook: requests answered with a reply (queued, or told the queue did not confirm in time). */
  answered?: number;
  failures?: Record<string, number>;
  ok: number;
  failed: number;
  maxRssKb: number;
  /** `await import(bundle)`, ms. */
  initMs: number;
  /** The first handler call, from its start to its answer, ms. */
  firstMs: number;
  /** Whether undici (Node's lazy fetch, Headers, Request, Response) was loaded by the end of the first call. */
  undiciLoaded: boolean;
}

/** What every function's process gets: AWS reached at the emulators, its state table, the Console API. */
export function emulatorEnv(emulators: Emulators, tableName: string, consoleUrl: string): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'bench',
    AWS_SECRET_ACCESS_KEY: 'bench',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    AWS_ENDPOINT_URL_SQS: emulators.sqsEndpoint,
    AWS_ENDPOINT_URL_DYNAMODB: emulators.dynamodbEndpoint,
    ACTIONS_QUEUE_URL: emulators.queueUrl,
    DLQ_URL: emulators.dlqUrl,
    STATE_TABLE_NAME: tableName,
    CONSOLE_API_BASE_URL: consoleUrl,
  };
}

/** Bundled as deployed, the normalized policy beside it. */
export async function bundleAsDeployed(entry: string, outDir: string, policyFile: string): Promise<string> {
  const policy = bundledPolicy(policyFile);
  mkdirSync(outDir, { recursive: true });
  const outfile = join(outDir, 'index.mjs');
  await build({ ...esbuildOptions(entry, outfile, policy), logLevel: 'error' });
  writeBundledPolicy(outDir, policy);
  return outfile;
}

/**
 * Runs the driver on one bundle in a child process (which must not block this process: it serves
 * the emulators and the sandbox the bundle talks to). `fn` says which load the driver applies.
 */
export function runDriver(
  fn: string,
  file: string,
  env: NodeJS.ProcessEnv,
  load: object,
): Promise<DriverOutcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [DRIVER, fn, file], {
      env: { ...env, BENCH_MEMORY_LOAD: JSON.stringify(load) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    // Only the tail matters (the figures follow the last marker); the handlers' logs are dropped.
    let tail = '';
    let errors = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      tail = (tail + chunk).slice(-16_384);
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      errors = (errors + chunk).slice(-4096);
    });
    child.once('error', reject);
    child.once('close', (code) => {
      const at = tail.lastIndexOf('MEMORY:');
      if (code !== 0 || at < 0) {
        reject(new Error(`the ${fn} child exited ${code}: ${errors.slice(-1000)}`));
        return;
      }
      resolve(JSON.parse(tail.slice(at + 7).split('\n')[0] as string) as DriverOutcome);
    });
  });
}

/** Approvals the sandbox accepted among `requests` (its request log): what a worker's load came to. */
export function approvalsAccepted(
  requests: ReadonlyArray<{ method: string; path: string; status: number }>,
): number {
  return requests.filter((r) => r.method === 'PUT' && r.path.endsWith('/approve') && r.status === 200).length;
}
