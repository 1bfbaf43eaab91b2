/**
 * A cold start's first complete request, as deployed. The cold-start section times each
 * handler's first invocation against AWS endpoints that refuse at once, so a handler stops at its
 * first AWS call and may build fewer clients, and read fewer secrets, than a real first request
 * does: laziness could hide cost there. Here every function's first request runs to its end, in a
 * fresh `node` process per sample, against parts that answer: the SQS and DynamoDB emulators
 * (fauxqs, dynalite), Secrets Manager's JSON protocol (the test stand-in: no emulator exists), the
 * Console API sandbox and a Slack stand-in, all over HTTP in this process. Secrets come from
 * Secrets Manager as on Lambda (AUTOPILOT_SECRET_ID and the requester keys' secrets).
 *
 * - webhook: a signed `/autopilot approve` slash command, answered "Queued" (on the queue);
 * - worker: one approval record, approved by the sandbox and told in the channel;
 * - sweeper: a scheduled run with its cursor in place (a warm-up run wrote it), as every run but
 *   the first after a deploy;
 * - the baseline, the cold-start target's (bench/fixtures/bare-sdk-lazy-handler.ts): its three
 *   clients built on first use, one send each, every one answered.
 *
 * Each sample is a new process (import, then the first handler call), interleaved in a seeded
 * random order each round. No target: the figures say what a cold start's caller waits for.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { HANDLER_ENTRIES, type HandlerName, POLICY_FILE_NAME, REPO_ROOT } from '../infra/bundling.js';
import { startEmulators } from '../src/local/emulators.js';
import { startSandbox } from '../src/sandbox/index.js';
import { createRng } from '../src/sandbox/prng.js';
import { createStateTable } from '../src/state/table.js';
import { startFakeSecretsManager } from '../test/helpers/secrets-manager.js';
import { startSlackCapture } from '../test/helpers/slack-capture.js';
import {
  approvalsAccepted,
  bundleAsDeployed,
  type DriverOutcome,
  emulatorEnv,
  runDriver,
} from './deployed.js';
import { median, shuffled } from './stats.js';
import type { BenchSection } from './types.js';

const RUNS = Number(process.env.BENCH_FIRST_REQUEST_RUNS ?? 15);
const SIGNING_SECRET = 'bench-signing-secret-0123456789abcdef';
const BASELINE = 'bare SDK handler (lazy)';
type Variant = HandlerName | typeof BASELINE;

/** The worker's policy here: CI approvals at any time (the deployed default would ask a human). */
const WORKER_POLICY = {
  version: 1,
  timezone: 'UTC',
  approvals: { rules: [{ name: 'bench approves CI', when: { requesters: ['ci:*'] }, decision: 'approve' }] },
};

const round1 = (n: number) => Math.round(n * 10) / 10;

export async function run(): Promise<BenchSection> {
  const work = mkdtempSync(join(tmpdir(), 'autopilot-first-request-'));
  const emulators = await startEmulators();
  const api = await startSandbox({ rateLimits: false });
  const secrets = await startFakeSecretsManager();
  const slack = await startSlackCapture();
  try {
    const workerPolicy = join(work, 'worker-policy.json');
    writeFileSync(workerPolicy, JSON.stringify(WORKER_POLICY));
    const fixture = join(REPO_ROOT, 'bench', 'fixtures', 'bare-sdk-lazy-handler.ts');
    const built = async (entry: string, name: string, policy: string) =>
      bundleAsDeployed(entry, join(work, name), policy);
    const bundles: Record<Variant, string> = {
      webhook: await built(join(REPO_ROOT, HANDLER_ENTRIES.webhook), 'webhook', 'policy.json'),
      worker: await built(join(REPO_ROOT, HANDLER_ENTRIES.worker), 'worker', workerPolicy),
      sweeper: await built(join(REPO_ROOT, HANDLER_ENTRIES.sweeper), 'sweeper', 'policy.json'),
      [BASELINE]: await built(fixture, 'bare', 'policy.json'),
    };
    const channel = `${slack.origin}/services/bench-channel`;
    const keys = {
      'webhook-key': randomBytes(32).toString('hex'),
      'sweeper-key': randomBytes(32).toString('hex'),
    };
    for (const [id, value] of Object.entries(keys)) secrets.values.set(id, value);
    secrets.values.set(
      'webhook-secret',
      JSON.stringify({ slackSigningSecret: SIGNING_SECRET, consoleReadOnlyApiKey: 'sandbox-key' }),
    );
    secrets.values.set(
      'worker-secret',
      JSON.stringify({ consoleApiKey: 'sandbox-key', slackWebhookUrl: channel }),
    );
    secrets.values.set(
      'sweeper-secret',
      JSON.stringify({ consoleReadOnlyApiKey: 'sandbox-key', slackWebhookUrl: channel }),
    );
    secrets.values.set('bare-secret', JSON.stringify({ value: 'bench' }));

    let tables = 0;
    const sweeperTable = 'first-request-sweeper';
    await createStateTable(emulators.dynamo, sweeperTable);
    /** As the stack gives each function its environment; a fresh state table per process but the sweeper's (its cursor). */
    const envFor = async (variant: Variant): Promise<NodeJS.ProcessEnv> => {
      let tableName = sweeperTable;
      if (variant !== 'sweeper') {
        tableName = `first-request-${++tables}`;
        await createStateTable(emulators.dynamo, tableName);
      }
      const fn = driverName(variant);
      return {
        ...emulatorEnv(emulators, tableName, api.url),
        AWS_ENDPOINT_URL_SECRETS_MANAGER: secrets.url,
        AUTOPILOT_SECRET_ID: `${fn}-secret`,
        WEBHOOK_REQUESTER_KEY_SECRET_ID: 'webhook-key',
        SWEEPER_REQUESTER_KEY_SECRET_ID: 'sweeper-key',
        SLACK_REPLY_ORIGINS: slack.origin,
        MUTATION_LIMIT_10S: '50',
        MUTATION_LIMIT_15MIN: '450',
        AUTOPILOT_POLICY: join(work, fn, POLICY_FILE_NAME),
        // The driver signs the slash command with it; the webhook reads its own from Secrets Manager.
        BENCH_SIGNING_SECRET: SIGNING_SECRET,
      };
    };
    // The one trigger the webhook's command names and the worker's record approves, at ph_1 again before each.
    const template = api.sandbox.state.triggers.get('trg_1');
    if (template?.currentPhaseID !== 'ph_1') throw new Error('sandbox seed changed: trg_1 is not at ph_1');
    const freshTrigger = () =>
      api.sandbox.state.triggers.set('trg_mem_0', {
        ...structuredClone(template),
        id: 'trg_mem_0',
        actions: [],
      });
    const loads: Record<Variant, object> = {
      webhook: { commands: 1, concurrent: false },
      worker: { records: 1, batchSize: 1 },
      sweeper: {},
      [BASELINE]: {},
    };
    const runOnce = async (variant: Variant): Promise<DriverOutcome> => {
      freshTrigger();
      return runDriver(driverName(variant), bundles[variant], await envFor(variant), loads[variant]);
    };

    await runOnce('sweeper'); // writes the cursor: every measured run is a steady-state run
    const variants: Variant[] = ['webhook', 'worker', 'sweeper', BASELINE];
    const samples = new Map<Variant, DriverOutcome[]>(variants.map((v) => [v, []]));
    const rng = createRng(0x1f1257);
    const approvalsBefore = approvalsAccepted(api.sandbox.requests);
    const postsBefore = slack.posts.length;
    for (let i = 0; i < RUNS; i++)
      for (const variant of shuffled(variants, () => rng.next()))
        samples.get(variant)?.push(await runOnce(variant));

    const of = (variant: Variant) => samples.get(variant) ?? [];
    const first = (variant: Variant) => median(of(variant).map((s) => s.firstMs));
    const total = (variant: Variant) => median(of(variant).map((s) => s.initMs + s.firstMs));
    const complete: Record<Variant, boolean> = {
      webhook: of('webhook').every((s) => s.ok === 1 && s.failed === 0),
      worker: of('worker').every((s) => s.ok === 1 && s.failed === 0),
      sweeper: of('sweeper').every((s) => s.failed === 0),
      [BASELINE]: of(BASELINE).every((s) => s.ok === 3 && s.failed === 0),
    };
    const approved = approvalsAccepted(api.sandbox.requests) - approvalsBefore;
    const rows: BenchSection['rows'] = [];
    for (const fn of ['webhook', 'worker', 'sweeper'] as const) {
      rows.push(
        {
          name: `${fn}: first complete request of a fresh process (vs the baseline's first invocation, 3 answered sends)`,
          value: round1(first(fn)),
          unit: 'ms',
          baseline: round1(first(BASELINE)),
          ratio: Math.round((first(fn) / first(BASELINE)) * 100) / 100,
        },
        {
          name: `${fn}: init + first complete request (what the first caller waits for, vs the baseline's)`,
          value: round1(total(fn)),
          unit: 'ms',
          baseline: round1(total(BASELINE)),
          ratio: Math.round((total(fn) / total(BASELINE)) * 100) / 100,
        },
      );
    }
    // Node's fetch, Headers, Request and Response load undici on first use (~20 ms here); the
    // webhook's path avoids them (src/webhook/event-headers.ts), the others' calls go over node:http.
    for (const fn of ['webhook', 'worker', 'sweeper'] as const)
      rows.push({
        name: `${fn}: fresh processes whose first complete request loaded undici`,
        value: of(fn).filter((s) => s.undiciLoaded).length,
        unit: `of ${RUNS}`,
        ...(fn === 'webhook' ? { target: '0', pass: of(fn).every((s) => !s.undiciLoaded) } : {}),
      });
    rows.push({
      name: `requests run to their end (${RUNS} per function: webhook queued, worker approved by the sandbox, sweeper run without failure, baseline's 3 sends answered)`,
      value: variants.filter((v) => complete[v]).length,
      unit: 'of 4 functions',
      target: '4, and one sandbox approval per worker request',
      pass: variants.every((v) => complete[v]) && approved === RUNS,
    });
    return {
      title: "A cold start's first complete request (deployed bundles, parts that answer)",
      rows,
      notes: [
        `Median of ${RUNS} fresh \`node\` processes per function (Node ${process.versions.node} here), interleaved in a seeded random order each round; init is \`await import(bundle)\`, the first request the first handler call from its start to its answer (bench/fixtures/memory-load.mjs). Each bundle is built with the deployed esbuild options (infra/bundling.ts); each process gets the environment the stack gives its function, its secrets read from Secrets Manager's protocol (AUTOPILOT_SECRET_ID, the requester keys' secret ids).`,
        `The parts answer over loopback HTTP in the bench's process: fauxqs, dynalite, a Secrets Manager stand-in (test/helpers/secrets-manager.ts), the Console API sandbox (no rate limits, no latency) and a Slack stand-in (${slack.posts.length - postsBefore} channel posts received during the measured runs). On Lambda each of these calls crosses a network: the absolute figures are a floor, the ratios say how much of a cold start is ours.`,
        "The worker's policy approves CI requests (bench/first-request.bench.ts, WORKER_POLICY); the webhook and sweeper use the repository's policy.json. The sweeper's cursor is in place (a warm-up run wrote it), so each measured run is a steady-state run; its first run after a deploy reads the whole history (the memory section's 100,000-event run).",
        "Unlike the cold-start section's first invocation, where AWS refuses at once and a handler stops at its first call, every request here runs to its end, so no client, secret read or schema a real first request needs is left out.",
      ],
    };
  } finally {
    await slack.close();
    await secrets.close();
    await api.close();
    await emulators.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

/** The driver's name for a variant (bench/fixtures/memory-load.mjs): the baseline is its `bare`. */
function driverName(variant: Variant): string {
  return variant === BASELINE ? 'bare' : variant;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  run().then((section) => {
    console.log(JSON.stringify(section, null, 2));
    process.exit(0);
  });
}
