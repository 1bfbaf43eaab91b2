/**
 * Memory under load: each function's peak RSS under its heaviest load, beside the memory size the
 * stack gives it (infra/function-memory.ts). Each function runs as deployed (its bundle built with
 * the esbuild options of infra/bundling.ts, the normalized policy beside it) in a fresh `node`
 * process of its own (bench/fixtures/memory-load.mjs), so only Node, the bundle and a small
 * driver are counted; the SQS and DynamoDB emulators (fauxqs, dynalite) and the Console API
 * sandbox, over HTTP, run in this process. Peak RSS is the child's `process.resourceUsage().maxRSS`
 * at the end of its load. Loads:
 *
 * - webhook: a burst of signed `/autopilot approve` slash commands, all at once (more than one
 *   Lambda container ever holds: it serves one request at a time, so this is an upper bound),
 *   and the same number one after another (what one warm container sees);
 * - worker: a drain of approval records in batches of 10 (the stack's event source sends 5)
 *   through the real handler, each approval sent to the sandbox;
 * - sweeper: its first run on 100,000 events of history (every page read, last-seen and cursor
 *   written), with the deployed policy.
 *
 * Target per function: peak RSS ≤ half the memory size the stack gives it.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { HANDLER_ENTRIES, type HandlerName, POLICY_FILE_NAME, REPO_ROOT } from '../infra/bundling.js';
import { FUNCTION_MEMORY_MB, MEMORY_HEADROOM, smallestMemoryFor } from '../infra/function-memory.js';
import { startEmulators } from '../src/local/emulators.js';
import { startSandbox } from '../src/sandbox/index.js';
import { createStateTable } from '../src/state/table.js';
import {
  approvalsAccepted,
  bundleAsDeployed,
  type DriverOutcome,
  emulatorEnv,
  runDriver,
} from './deployed.js';
import type { BenchSection } from './types.js';

const COMMANDS = Number(process.env.BENCH_MEMORY_COMMANDS ?? 500);
const RECORDS = Number(process.env.BENCH_MEMORY_RECORDS ?? 300);
const BATCH_SIZE = 10;
const HISTORY = 100_000;
const SIGNING_SECRET = 'bench-signing-secret';

/** The worker's policy here: CI approvals at any time, no hourly cap, so every record reaches the API. */
const WORKER_POLICY = {
  version: 1,
  timezone: 'UTC',
  approvals: { rules: [{ name: 'bench approves CI', when: { requesters: ['ci:*'] }, decision: 'approve' }] },
};

export async function run(): Promise<BenchSection> {
  const work = mkdtempSync(join(tmpdir(), 'autopilot-memory-'));
  const emulators = await startEmulators();
  const api = await startSandbox({ eventCount: HISTORY, rateLimits: false });
  try {
    const workerPolicy = join(work, 'worker-policy.json');
    writeFileSync(workerPolicy, JSON.stringify(WORKER_POLICY));
    const bundles: Record<HandlerName | 'empty', string> = {
      empty: await bundleAsDeployed(
        join(REPO_ROOT, 'bench', 'fixtures', 'empty-handler.ts'),
        join(work, 'empty'),
        'policy.json',
      ),
      webhook: await bundleAsDeployed(
        join(REPO_ROOT, HANDLER_ENTRIES.webhook),
        join(work, 'webhook'),
        'policy.json',
      ),
      worker: await bundleAsDeployed(
        join(REPO_ROOT, HANDLER_ENTRIES.worker),
        join(work, 'worker'),
        workerPolicy,
      ),
      sweeper: await bundleAsDeployed(
        join(REPO_ROOT, HANDLER_ENTRIES.sweeper),
        join(work, 'sweeper'),
        'policy.json',
      ),
    };
    let tables = 0;
    /** Each run its own state table: the sweeper's first run must find no cursor. */
    const envFor = async (fn: keyof typeof bundles): Promise<NodeJS.ProcessEnv> => {
      const tableName = `memory-${++tables}`;
      await createStateTable(emulators.dynamo, tableName);
      return {
        ...emulatorEnv(emulators, tableName, api.url),
        CONSOLE_API_KEY: 'sandbox-key',
        SLACK_SIGNING_SECRET: SIGNING_SECRET,
        WEBHOOK_REQUESTER_KEY: randomBytes(32).toString('hex'),
        SWEEPER_REQUESTER_KEY: randomBytes(32).toString('hex'),
        // No wait for the budget: the load is what is measured here, not the pace.
        MUTATION_LIMIT_10S: '100000',
        MUTATION_LIMIT_15MIN: '100000',
        AUTOPILOT_POLICY: join(work, fn, POLICY_FILE_NAME),
        BENCH_MEMORY_MB: String(fn === 'empty' ? 128 : FUNCTION_MEMORY_MB[fn]),
      };
    };
    const mb = (o: DriverOutcome) => Math.round(o.maxRssKb / 1024);

    const empty = await runDriver('empty', bundles.empty, await envFor('empty'), {});
    // Invocations at once in one process happen only where Lambda runs them concurrently, and
    // then says so: with the variable, each invocation's log fields are its own, as deployed there
    // (src/observability/invocation.ts).
    const burstEnv = { ...(await envFor('webhook')), AWS_LAMBDA_MAX_CONCURRENCY: String(COMMANDS) };
    const burst = await runDriver('webhook', bundles.webhook, burstEnv, {
      commands: COMMANDS,
      concurrent: true,
    });
    const oneByOne = await runDriver('webhook', bundles.webhook, await envFor('webhook'), {
      commands: COMMANDS,
      concurrent: false,
    });
    const sweep = await runDriver('sweeper', bundles.sweeper, await envFor('sweeper'), {});
    // Fresh triggers, each waiting on its first phase (clones of trg_1), one per record.
    const template = api.sandbox.state.triggers.get('trg_1');
    if (template?.currentPhaseID !== 'ph_1') throw new Error('sandbox seed changed: trg_1 is not at ph_1');
    for (let i = 0; i < RECORDS; i++) {
      const id = `trg_mem_${i}`;
      api.sandbox.state.triggers.set(id, { ...structuredClone(template), id, actions: [] });
    }
    const firstRequest = api.sandbox.requests.length;
    const drain = await runDriver('worker', bundles.worker, await envFor('worker'), {
      records: RECORDS,
      batchSize: BATCH_SIZE,
    });
    const approvals = approvalsAccepted(api.sandbox.requests.slice(firstRequest));

    const rows: BenchSection['rows'] = [
      { name: 'Node alone (an empty handler, as deployed): peak RSS', value: mb(empty), unit: 'MB' },
    ];
    const target = (fn: HandlerName, what: string, outcome: DriverOutcome) => {
      const size = FUNCTION_MEMORY_MB[fn];
      rows.push({
        name: `${fn}: peak RSS ${what} (the stack gives ${size} MB)`,
        value: mb(outcome),
        unit: 'MB',
        target: `≤ ${size / MEMORY_HEADROOM} MB (half the memory size the stack gives)`,
        pass: (outcome.maxRssKb / 1024) * MEMORY_HEADROOM <= size,
      });
    };
    target('webhook', `under a burst of ${COMMANDS} slash commands at once`, burst);
    rows.push(
      {
        name: `webhook: ${COMMANDS} slash commands at once — answered (200 with a reply)`,
        value: burst.answered ?? 0,
        unit: 'commands',
        target: `${COMMANDS}`,
        pass: burst.answered === COMMANDS,
      },
      { name: `webhook: ${COMMANDS} slash commands at once — queued`, value: burst.ok, unit: 'commands' },
    );
    rows.push({
      name: `webhook: peak RSS after ${COMMANDS} slash commands one after another (one warm container)`,
      value: mb(oneByOne),
      unit: 'MB',
    });
    target('worker', `draining ${RECORDS} approvals in batches of ${BATCH_SIZE}`, drain);
    rows.push({
      name: `worker: ${RECORDS} approvals — accepted by the sandbox`,
      value: approvals,
      unit: 'approvals',
      target: `${RECORDS}, no batch item failure`,
      pass: approvals === RECORDS && drain.failed === 0,
    });
    target('sweeper', `on its first run over ${HISTORY.toLocaleString('en')} events of history`, sweep);
    rows.push({
      name: `sweeper: events read in that run`,
      value: sweep.ok,
      unit: 'events',
      target: `${HISTORY}`,
      pass: sweep.ok === HISTORY,
    });

    const peaks: Record<HandlerName, number> = {
      webhook: Math.max(burst.maxRssKb, oneByOne.maxRssKb) / 1024,
      worker: drain.maxRssKb / 1024,
      sweeper: sweep.maxRssKb / 1024,
    };
    const sizing = (Object.keys(peaks) as HandlerName[]).map(
      (fn) =>
        `${fn} ${smallestMemoryFor(peaks[fn]) ?? 'none'} MB (the stack gives ${FUNCTION_MEMORY_MB[fn]} MB)`,
    );
    return {
      title: 'Memory under load (peak RSS, each function in its own process)',
      rows,
      notes: [
        `Each function is its deployed bundle in a fresh \`node\` process (Node ${process.versions.node} here; Lambda runs nodejs24.x on arm64, whose figures differ somewhat) with only a small driver (bench/fixtures/memory-load.mjs); peak RSS is that process's maxRSS at the end of the load. The emulators (fauxqs, dynalite) and the Console API sandbox run in the bench's own process and are not counted.`,
        `Smallest of ${'128, 256, 384, 512, 768, 1024'} MB with ${MEMORY_HEADROOM}× headroom over the measured peak: ${sizing.join(', ')}. The sizes live in infra/function-memory.ts.`,
        ...(burst.failed
          ? [
              `Not queued in the burst (status and the start of the reply: count): ${Object.entries(
                burst.failures ?? {},
              )
                .map(([why, n]) => `${why}…: ${n}`)
                .join(
                  '; ',
                )}. Each of them was still answered, with a reply saying it was not queued; those sends failed against one emulator process taking ${COMMANDS} connections at once on this shared machine (the webhook's AWS calls have 1 s to connect and 2 s a request, src/wiring/from-env.ts), which one Lambda container, serving one request at a time, never asks of SQS.`,
            ]
          : []),
        'The burst row is an upper bound for the webhook: a Lambda container serves one request at a time, so a burst spreads over many containers; the one-after-another row is what a single warm container accumulates. The burst runs with AWS_LAMBDA_MAX_CONCURRENCY set, as Lambda sets it where one environment serves invocations at once: each invocation then keeps its log fields in an AsyncLocalStorage (src/observability/invocation.ts), as it would there.',
      ],
    };
  } finally {
    await api.close();
    await emulators.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  run().then((section) => {
    console.log(JSON.stringify(section, null, 2));
    process.exit(0);
  });
}
