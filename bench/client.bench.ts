/**
 * Console API client benchmarks, against the sandbox over real HTTP on loopback:
 *
 * 1. Overhead per request: `client.segments.get(id)` against the same request on the same
 *    transport: over node:http, the same request by hand with a timer (target p50 ≤ 1.05×);
 *    the client given `fetch`, a raw fetch with an AbortController timeout (target p50 ≤ 1.10×).
 *    A raw fetch without timeout is shown for reference. All run interleaved, in a new random
 *    order each round, so machine noise (two shared cores) and each one's aftermath fall on all alike.
 * 2. Iterating 10,000 items across pages (`for await` over `events.list`), against a raw
 *    fetch loop that follows `nextPage` itself, at limit 100 and at the default limit 10.
 *    The sandbox is seeded with exactly 10,000 events (`eventCount`).
 *
 * The sandbox runs in a child process and the measurement in another, as in production,
 * where the platform is a remote peer: the client's process then holds only what a Lambda
 * bundle holds (the client and zod/mini), not the sandbox's server, its event loop or its
 * classic zod schemas (whose global cycle memoizer would wrap every parse of the client).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { ESM_REQUIRE_BANNER, MAIN_FIELDS, NODE_TARGET, OUTPUT } from '../infra/bundling.js';
import type * as ClientIndex from '../src/console/index.js';
import { createRng } from '../src/sandbox/prng.js';
import type * as OwnWork from './fixtures/client-own-work.js';
import { REPO_ROOT as ROOT, SANDBOX_KEY, startSandboxProcess } from './processes.js';
import { median, percentile, shuffled } from './stats.js';
import type { BenchSection } from './types.js';

type ClientModule = Pick<typeof ClientIndex, 'createConsoleClient'>;
type OwnWorkModule = typeof OwnWork;

const KEY = SANDBOX_KEY;
const REQUESTS = Number(process.env.BENCH_CLIENT_REQUESTS ?? 2000);
const WARMUP = 500;
const ITEMS = 10_000;
/** Passes over the ITEMS events per page size; the median is reported. */
const ITERATION_PASSES = 5;
/** Transport-matched targets: the client over node:http vs the same request by hand; the client given fetch vs a raw fetch with the same timeout. */
const HTTP_TARGET = 1.05;
const FETCH_TARGET = 1.1;
/** Calls per pass of the own-work rows (the network taken out). */
const OWN_WORK_CALLS = 20_000;
/** Fresh processes per contender for the first-request figure. */
const COLD_RUNS = Number(process.env.BENCH_CLIENT_COLD_RUNS ?? 9);

const round = (n: number, digits = 3) => Number(n.toFixed(digits));

export async function run(): Promise<BenchSection> {
  const sandbox = await startSandboxProcess(ITEMS);
  const dir = mkdtempSync(join(tmpdir(), 'autopilot-client-bench-'));
  try {
    const bundle = await buildClientBundle(dir);
    const ownWork = await buildClientBundle(dir, OWN_WORK_ENTRY, 'own-work.mjs');
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', fileURLToPath(import.meta.url), '--measure', sandbox.url, bundle, ownWork],
      { cwd: ROOT, maxBuffer: 1 << 20, timeout: 120_000 },
    );
    const section = JSON.parse(stdout.slice(stdout.indexOf('{'))) as BenchSection;
    const cold = await firstRequests(sandbox.url, bundle);
    section.rows.splice(section.rows.length - 2, 0, {
      name: 'first request of a fresh process, median (client vs raw fetch)',
      value: round(cold.client, 1),
      unit: 'ms',
      baseline: round(cold.fetch, 1),
      ratio: round(cold.client / cold.fetch),
    });
    section.notes?.push(
      `First request: ${COLD_RUNS} fresh plain-node processes each for the client and for a raw fetch, interleaved; time from before each path's imports to the parsed body: the client's esbuild bundle imported, the client built and its request sent; the raw fetch loads undici on its first call.`,
    );
    return section;
  } finally {
    sandbox.child.kill();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Median time of the first request in fresh processes, imports included: the client's (its
 * module bundled with esbuild as a Lambda bundle is, then imported, built and used) and a raw
 * fetch's (Node loads undici on the first fetch). Plain `node`, no TypeScript loader.
 */
async function firstRequests(baseUrl: string, bundle: string): Promise<{ client: number; fetch: number }> {
  const path = '/console/v1/segments?limit=1';
  const scripts = {
    client: [
      'const t0 = performance.now();',
      'const { createConsoleClient } = await import(process.argv[1]);',
      `const client = createConsoleClient({ baseUrl: process.argv[2], apiKey: '${KEY}', mutationBudget: false });`,
      'const page = await client.segments.list({ limit: 1 });',
      "if (page.data.length !== 1) throw new Error('no segment');",
      'process.stdout.write(String(performance.now() - t0));',
    ],
    fetch: [
      'const t0 = performance.now();',
      `const res = await fetch(process.argv[2] + '${path}', { headers: { 'SERVICE-API-KEY': '${KEY}', accept: 'application/json' } });`,
      'const body = await res.json();',
      "if (body.data.length !== 1) throw new Error('no segment');",
      'process.stdout.write(String(performance.now() - t0));',
    ],
  };
  const samples = { client: [] as number[], fetch: [] as number[] };
  for (let i = 0; i < COLD_RUNS; i++) {
    for (const mode of i % 2 ? (['fetch', 'client'] as const) : (['client', 'fetch'] as const)) {
      const { stdout } = await promisify(execFile)(
        process.execPath,
        ['--input-type=module', '-e', scripts[mode].join(' '), pathToFileURL(bundle).href, baseUrl],
        { cwd: ROOT, timeout: 60_000 },
      );
      samples[mode].push(Number(stdout.trim()));
    }
  }
  return { client: median(samples.client), fetch: median(samples.fetch) };
}

const CLIENT_ENTRY = "export { createConsoleClient } from './src/console/index.ts';";
const OWN_WORK_ENTRY = "export { segmentsAnsweredWith } from './bench/fixtures/client-own-work.ts';";

/**
 * The client as a Lambda bundle holds it: esbuild with the deployed options (infra/bundling.ts),
 * so the measured code is the deployed code (no TypeScript loader, minified, node22 syntax).
 */
async function buildClientBundle(dir: string, contents = CLIENT_ENTRY, name = 'client.mjs'): Promise<string> {
  const bundle = join(dir, name);
  await build({
    stdin: { contents, resolveDir: ROOT, loader: 'ts' },
    outfile: bundle,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: NODE_TARGET,
    minify: OUTPUT.minify,
    mainFields: MAIN_FIELDS,
    banner: { js: ESM_REQUIRE_BANNER },
    logLevel: 'silent',
  });
  return bundle;
}

/** The measurement itself, in a process that holds the client only. */
async function measure(baseUrl: string, bundle: string, ownWorkBundle: string): Promise<BenchSection> {
  const running = { url: baseUrl };
  const { createConsoleClient } = (await import(pathToFileURL(bundle).href)) as ClientModule;
  const { segmentsAnsweredWith } = (await import(pathToFileURL(ownWorkBundle).href)) as OwnWorkModule;
  {
    const client = createConsoleClient({ baseUrl: running.url, apiKey: KEY, mutationBudget: false });
    const clientOnFetch = createConsoleClient({
      baseUrl: running.url,
      apiKey: KEY,
      mutationBudget: false,
      fetch: globalThis.fetch,
    });
    const headers = { 'SERVICE-API-KEY': KEY, accept: 'application/json' };
    const first = (await (await fetch(`${running.url}/console/v1/segments?limit=1`, { headers })).json()) as {
      data: Array<{ id: string }>;
    };
    const segmentId = first.data[0]?.id as string;
    const url = `${running.url}/console/v1/segments/${encodeURIComponent(segmentId)}`;

    const raw = async () => {
      const res = await fetch(url, { headers });
      const body = (await res.json()) as { data: { id: string } };
      if (res.status !== 200 || body.data.id !== segmentId) throw new Error('raw fetch failed');
    };
    // The same raw fetch plus the AbortController + timer that a per-attempt timeout needs.
    const rawWithTimeout = async () => {
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(), 10_000);
      try {
        const res = await fetch(url, { headers, signal: controller.signal });
        const body = (await res.json()) as { data: { id: string } };
        if (res.status !== 200 || body.data.id !== segmentId) throw new Error('raw fetch failed');
      } finally {
        clearTimeout(timer);
      }
    };
    // The client's own transport done by hand: node:http, a keep-alive agent, a timer. Written as
    // node:http's options (the origin parsed once, the path made per request), as the client's
    // sender does (src/http/target.ts): handing node:http the URL string instead costs the
    // baseline a parse of the whole URL per request (1.4–4 µs), which the ratio would credit to
    // the client.
    const agent = new HttpAgent({ keepAlive: true });
    // fetch asks for compressed replies by itself; node:http does not, and the client's sender does.
    const httpHeaders = { ...headers, 'accept-encoding': 'gzip, deflate, br' };
    const origin = new URL(running.url);
    const { protocol, hostname } = origin;
    const port = Number(origin.port);
    const rawHttp = () =>
      new Promise<void>((resolve, reject) => {
        const path = `/console/v1/segments/${encodeURIComponent(segmentId)}`;
        const req = httpRequest({ protocol, hostname, port, path, headers: httpHeaders, agent }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('error', reject);
          res.on('end', () => {
            clearTimeout(timer);
            const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { data: { id: string } };
            if (res.statusCode !== 200 || body.data.id !== segmentId) reject(new Error('raw http failed'));
            else resolve();
          });
        });
        const timer = setTimeout(() => req.destroy(new Error('timeout')), 10_000);
        req.on('error', reject);
        req.end();
      });
    const viaClient = async () => {
      const segment = await client.segments.get(segmentId);
      if (segment.id !== segmentId) throw new Error('client failed');
    };
    const viaClientOnFetch = async () => {
      const segment = await clientOnFetch.segments.get(segmentId);
      if (segment.id !== segmentId) throw new Error('client failed');
    };

    const contenders = [raw, rawWithTimeout, rawHttp, viaClient, viaClientOnFetch];
    for (let i = 0; i < WARMUP; i++) for (const fn of contenders) await fn();
    const times = contenders.map((): number[] => []);
    const random = createRng(17).next;
    const indexes = contenders.map((_, index) => index);
    for (let i = 0; i < REQUESTS; i++) {
      // A new order every round: in a fixed rotation the client given fetch always ran right
      // after the client on node:http, and a fetch right after a node:http request measured
      // 20–45 µs slower at p50; shuffled, every contender follows every other alike.
      for (const index of shuffled(indexes, random)) {
        const start = performance.now();
        await (contenders[index] as () => Promise<void>)();
        (times[index] as number[]).push(performance.now() - start);
      }
    }
    for (const list of times) list.sort((a, b) => a - b);
    const [rawTimes, timeoutTimes, httpTimes, clientTimes, onFetchTimes] = times as number[][] as [
      number[],
      number[],
      number[],
      number[],
      number[],
    ];
    const p50 = {
      raw: percentile(rawTimes, 50),
      withTimeout: percentile(timeoutTimes, 50),
      http: percentile(httpTimes, 50),
      client: percentile(clientTimes, 50),
      onFetch: percentile(onFetchTimes, 50),
    };
    const p99 = { raw: percentile(rawTimes, 99), client: percentile(clientTimes, 99) };
    const p50Ratio = p50.client / p50.raw;

    // Iterating 10,000 items: the client's `for await` and a raw loop that follows nextPage
    // itself advance in lockstep, one page each in turn (order swapped every page), each side
    // timing only its own steps — so JIT warm-up and machine load fall on both alike.
    const lockstep = async (limit: number) => {
      const items = client.events.list({ limit })[Symbol.asyncIterator]();
      let next: string | null = `/console/v1/events?page=1&limit=${limit}`;
      const ms = { client: 0, raw: 0 };
      const count = { client: 0, raw: 0 };
      let clientDone = false;
      const clientStep = async () => {
        const start = performance.now();
        for (let k = 0; k < limit && !clientDone; k++) {
          const result = await items.next();
          if (result.done) clientDone = true;
          else if (result.value.name) count.client++;
        }
        ms.client += performance.now() - start;
      };
      const rawStep = async () => {
        if (!next) return;
        const start = performance.now();
        const res = await fetch(new URL(next, running.url), { headers });
        const body = (await res.json()) as {
          data: Array<{ name: string }>;
          pagination: { nextPage: string | null };
        };
        for (const event of body.data) if (event.name) count.raw++;
        next = body.pagination.nextPage;
        ms.raw += performance.now() - start;
      };
      for (let step = 0; step < 20_000 && (!clientDone || next); step++) {
        if (step % 2 === 0) {
          await clientStep();
          await rawStep();
        } else {
          await rawStep();
          await clientStep();
        }
      }
      if (count.client !== ITEMS || count.raw !== ITEMS) {
        throw new Error(`iterated ${count.client} (client) and ${count.raw} (raw) items, expected ${ITEMS}`);
      }
      return { client: ITEMS / (ms.client / 1000), raw: ITEMS / (ms.raw / 1000) };
    };
    // Warm-up runs, discarded: the client path has more code for the JIT to warm than the raw loop.
    await lockstep(100);
    await lockstep(10);
    // One pass is 10,000 items: a pause of the shared machine moves it by 20%. The median of
    // ITERATION_PASSES passes, each side's rate taken on its own.
    const medianOf = async (limit: number) => {
      const passes: Array<{ client: number; raw: number }> = [];
      for (let pass = 0; pass < ITERATION_PASSES; pass++) passes.push(await lockstep(limit));
      return { client: median(passes.map((p) => p.client)), raw: median(passes.map((p) => p.raw)) };
    };
    const items100 = await medianOf(100);
    const items10 = await medianOf(10);

    // The client's own work per call, the network taken out: the same `segments.get` with its
    // sender answering at once (the response read from the sandbox here), against JSON.parse of
    // the same body with the same check. Passes of each alternate; the median pass is reported.
    const answer = await fetch(url, { headers });
    const response = {
      status: answer.status,
      headers: { 'content-type': 'application/json' },
      text: await answer.text(),
    };
    const answeredSegments = segmentsAnsweredWith(running.url, KEY, response);
    const answered = Promise.resolve(response);
    const ownWork = {
      client: async () => {
        const segment = await answeredSegments.get(segmentId);
        if (segment.id !== segmentId) throw new Error('client failed');
      },
      raw: async () => {
        const { status, text } = await answered;
        const body = JSON.parse(text) as { data: { id: string } };
        if (status !== 200 || body.data.id !== segmentId) throw new Error('raw parse failed');
      },
    };
    const microsPerCall = async (fn: () => Promise<void>) => {
      const start = performance.now();
      for (let i = 0; i < OWN_WORK_CALLS; i++) await fn();
      return ((performance.now() - start) / OWN_WORK_CALLS) * 1000;
    };
    for (const fn of [ownWork.client, ownWork.raw]) await microsPerCall(fn);
    const ownPasses = { client: [] as number[], raw: [] as number[] };
    for (let pass = 0; pass < ITERATION_PASSES; pass++) {
      ownPasses.client.push(await microsPerCall(ownWork.client));
      ownPasses.raw.push(await microsPerCall(ownWork.raw));
    }
    const own = { client: median(ownPasses.client), raw: median(ownPasses.raw) };

    return {
      title: 'Console API client (against the sandbox on loopback)',
      rows: [
        {
          name: 'GET segment p50 (client vs raw fetch)',
          value: round(p50.client),
          unit: 'ms',
          baseline: round(p50.raw),
          ratio: round(p50Ratio),
        },
        {
          name: 'GET segment p99 (client vs raw fetch)',
          value: round(p99.client),
          unit: 'ms',
          baseline: round(p99.raw),
          ratio: round(p99.client / p99.raw),
        },
        {
          name: 'GET segment p50 (client vs the same node:http request by hand, with a timer)',
          value: round(p50.client),
          unit: 'ms',
          baseline: round(p50.http),
          ratio: round(p50.client / p50.http),
          target: `≤ ${HTTP_TARGET}×`,
          pass: p50.client <= HTTP_TARGET * p50.http,
        },
        {
          name: 'client overhead per request at p50, beyond node:http by hand',
          value: round((p50.client - p50.http) * 1000, 0),
          unit: 'µs',
        },
        {
          name: "the client's own work per call, the network taken out (`segments.get` answered at once, vs JSON.parse of the same body)",
          value: round(own.client, 2),
          unit: 'µs',
          baseline: round(own.raw, 2),
          ratio: round(own.client / own.raw),
        },
        {
          name: 'GET segment p50, client given `fetch` (vs raw fetch with an AbortController timeout)',
          value: round(p50.onFetch),
          unit: 'ms',
          baseline: round(p50.withTimeout),
          ratio: round(p50.onFetch / p50.withTimeout),
          target: `≤ ${FETCH_TARGET}×`,
          pass: p50.onFetch <= FETCH_TARGET * p50.withTimeout,
        },
        {
          name: 'iterate 10,000 events, limit 100 (client vs raw loop)',
          value: Math.round(items100.client),
          unit: 'items/s',
          baseline: Math.round(items100.raw),
          ratio: round(items100.client / items100.raw),
        },
        {
          name: 'iterate 10,000 events, default limit 10 (client vs raw loop)',
          value: Math.round(items10.client),
          unit: 'items/s',
          baseline: Math.round(items10.raw),
          ratio: round(items10.client / items10.raw),
        },
      ],
      notes: [
        `${REQUESTS} rounds of interleaved requests (a new seeded random order each round: in a fixed rotation the client given fetch always followed the client on node:http, which cost it 20–45 µs at p50) after ${WARMUP} warm-up rounds; the raw baseline sends the same headers and parses JSON.`,
        "The client sends over node:http with a keep-alive agent (src/http/send.ts), not fetch: per request that is cheaper than undici, and its per-attempt timeout is a timer that destroys the request rather than an AbortSignal (on Node 20, handing fetch any signal costs tens of µs). Against the same node:http request done by hand (given node:http's options, the origin parsed once and the path made per request, as the client's sender does), what remains is the client's own work (key provider, URL, timer, status mapping, key scrubbing and zod validation of the envelope), run on caches a network wait left cold; the own-work row takes the network out.",
        `The client's own work, the network taken out (bench/fixtures/client-own-work.ts: the real transport and resource, bundled like the client, its sender answering at once with a response read from the sandbox): ${round(own.client, 2)} µs a call against ${round(own.raw, 2)} µs for JSON.parse of the same body, the median of ${ITERATION_PASSES} alternating passes of ${OWN_WORK_CALLS.toLocaleString('en-US')} calls each. Over the network the client's p50 is ${round((p50.client - p50.http) * 1000, 0)} µs over the same request by hand, about ${round(((p50.client - p50.http) * 1000) / Math.max(0.01, own.client - own.raw), 0)}× the ${round(own.client - own.raw, 2)} µs its own work adds here: the rest is the same code run between network waits, on caches the wait left cold (the webhook section shows the same for the webhook).`,
        'A client given `fetch` (the option stays for proxies and tests) is compared with a raw fetch that also carries an AbortController timeout, its floor.',
        'The sandbox runs in its own process and the measurement in another that holds only the client, as a Lambda would.',
        `The sandbox is seeded with ${ITEMS} events (eventCount); the client's for-await and a raw nextPage loop run in lockstep, page by page, each timing its own steps; the median of ${ITERATION_PASSES} passes per page size.`,
      ],
    };
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const at = process.argv.indexOf('--measure');
  const section =
    at > 0
      ? measure(
          process.argv[at + 1] as string,
          process.argv[at + 2] as string,
          process.argv[at + 3] as string,
        )
      : run();
  section.then((result) => console.log(JSON.stringify(result, null, 2)));
}
