/**
 * The local stack's terminal and its log files (README, "Local stack"): a day-one user saw the
 * banner scroll away under dozens of JSON lines within a second of the first sweep. Every JSON
 * line (logs and EMF metrics) goes in full to `<dir>/<function>.jsonl`; the terminal shows the
 * "to Slack" blocks and each warn or error line in short; `AUTOPILOT_LOCAL_LOGS=all` prints all.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderBanner } from '../../src/local/banner.js';
import { createLocalLogs, shortLine, terminalLogsEnv } from '../../src/local/logs.js';
import { bootLocalStack, type LocalStack } from '../../src/local/stack.js';
import { NO_FAULTS } from '../../src/sandbox/faults.js';

const dir = mkdtempSync(join(tmpdir(), 'autopilot-logs-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const line = (fields: Record<string, unknown>) =>
  JSON.stringify({ level: 'info', time: '2026-11-23T08:30:05.123Z', service: 'worker', ...fields });
const EMF = JSON.stringify({
  _aws: {
    Timestamp: 1,
    CloudWatchMetrics: [{ Namespace: 'ConsoleAutopilot', Dimensions: [['Service']], Metrics: [] }],
  },
  Service: 'sweeper',
  EventsRead: 2000,
});

describe('the terminal form of a line', () => {
  it('shows a warning as time, function, level, message, its error and the request id', () => {
    const warn = line({
      level: 'warn',
      message: 'reply not delivered',
      requestId: 'req-1',
      awsRequestId: 'aws-1',
      error: { name: 'Error', message: 'Slack answered 500: oops' },
    });
    expect(shortLine('worker', warn)).toBe(
      '08:30:05Z worker   WARN  reply not delivered: Slack answered 500: oops  (request req-1)',
    );
  });

  it('shows an error with the invocation’s id when it names no request, and a string error as is', () => {
    const error = line({
      level: 'error',
      message: 'release tick failed',
      awsRequestId: 'aws-2',
      error: 'boom',
    });
    expect(shortLine('worker', error)).toBe(
      '08:30:05Z worker   ERROR release tick failed: boom  (request aws-2)',
    );
    expect(shortLine('local-stack', line({ level: 'warn', message: 'stopping a part failed' }))).toBe(
      '08:30:05Z local-stack WARN  stopping a part failed',
    );
  });

  it('gives a refusal’s reason when there is no error', () => {
    const refused = line({
      level: 'warn',
      message: 'refused action request sent to the DLQ',
      requestId: 'sqs:41dd',
      reason: 'requester not proven',
    });
    expect(shortLine('worker', refused)).toBe(
      '08:30:05Z worker   WARN  refused action request sent to the DLQ: requester not proven  (request sqs:41dd)',
    );
  });

  it('leaves info, debug and metric lines to the file', () => {
    expect(shortLine('sweeper', line({ message: 'action request queued' }))).toBeUndefined();
    expect(shortLine('sweeper', line({ level: 'debug', message: 'page read' }))).toBeUndefined();
    expect(shortLine('sweeper', EMF)).toBeUndefined();
  });

  it('shows a line that is not a JSON object whole, and text from outside on one printable line', () => {
    expect(shortLine('worker', 'not json')).toBe('not json');
    expect(shortLine('worker', '[1,2]')).toBe('[1,2]');
    const hostile = line({ level: 'warn', message: 'platform said \u001b]0;owned\u0007\nsecond line' });
    expect(shortLine('worker', hostile)).toBe(
      '08:30:05Z worker   WARN  platform said \\u001b]0;owned\\u0007\\nsecond line',
    );
  });
});

describe('AUTOPILOT_LOCAL_LOGS', () => {
  it('is warn by default, all on request, and refused otherwise with its name', () => {
    expect(terminalLogsEnv({})).toBe('warn');
    expect(terminalLogsEnv({ AUTOPILOT_LOCAL_LOGS: 'all' })).toBe('all');
    expect(terminalLogsEnv({ AUTOPILOT_LOCAL_LOGS: ' warn ' })).toBe('warn');
    expect(() => terminalLogsEnv({ AUTOPILOT_LOCAL_LOGS: 'verbose' })).toThrow(
      'environment variable AUTOPILOT_LOCAL_LOGS must be one of warn, all, got "verbose"',
    );
  });
});

describe('the log files', () => {
  const lines = [line({ message: 'sweep finished' }), EMF, line({ level: 'error', message: 'failed' })];

  it('hold every line in full, one file per function; the terminal gets the warnings in short', () => {
    const printed: string[] = [];
    const logs = createLocalLogs({ dir: join(dir, 'warn'), print: (t) => printed.push(t) });
    const sink = logs.sink('sweeper');
    for (const l of lines) sink(l);
    logs.sink('webhook')(line({ service: 'webhook', message: 'request' }));
    expect(readFileSync(logs.fileOf('sweeper'), 'utf8')).toBe(`${lines.join('\n')}\n`);
    expect(logs.fileOf('sweeper')).toBe(join(dir, 'warn', 'sweeper.jsonl'));
    expect(readFileSync(join(dir, 'warn', 'webhook.jsonl'), 'utf8')).toContain('"message":"request"');
    expect(printed).toEqual(['08:30:05Z sweeper  ERROR failed']);
  });

  it('print every line in full too with AUTOPILOT_LOCAL_LOGS=all', () => {
    const printed: string[] = [];
    const logs = createLocalLogs({ dir: join(dir, 'all'), terminal: 'all', print: (t) => printed.push(t) });
    for (const l of lines) logs.sink('sweeper')(l);
    expect(printed).toEqual(lines);
    expect(readFileSync(logs.fileOf('sweeper'), 'utf8')).toBe(`${lines.join('\n')}\n`);
  });

  it('are emptied when the stack opens them, and nothing else in the directory is', () => {
    const logs = createLocalLogs({ dir: join(dir, 'open'), print: () => undefined });
    logs.sink('worker')(line({ message: 'from the last start' }));
    writeFileSync(join(dir, 'open', 'notes.txt'), 'mine');
    logs.open();
    expect(existsSync(logs.fileOf('worker'))).toBe(false);
    expect(readFileSync(join(dir, 'open', 'notes.txt'), 'utf8')).toBe('mine');
  });

  it('print a line whole when its file cannot be written, rather than lose it or throw', () => {
    const printed: string[] = [];
    const blocked = join(dir, 'blocked');
    writeFileSync(blocked, 'a file where the directory should be');
    const logs = createLocalLogs({ dir: blocked, print: (t) => printed.push(t) });
    const info = line({ message: 'kept' });
    expect(() => logs.sink('worker')(info)).not.toThrow();
    expect(printed).toEqual([info]);
  });
});

/**
 * The stack as `npm start` wires it, its sweep's approvals answered 5xx and given up at once
 * (one receive), so that the worker warns and errs about real requests.
 */
describe('the local stack with its logs in files', () => {
  const base = join(dir, 'stack');
  const terminal: string[] = [];
  let stack: LocalStack;
  const fileLines = (name: string) =>
    existsSync(join(base, 'logs', `${name}.jsonl`))
      ? readFileSync(join(base, 'logs', `${name}.jsonl`), 'utf8')
          .split('\n')
          .filter(Boolean)
      : [];

  beforeAll(async () => {
    const policy = JSON.parse(readFileSync(resolve(import.meta.dirname, '../../policy.json'), 'utf8'));
    policy.approvals.freezes = [];
    const policyPath = join(dir, 'policy.json');
    writeFileSync(policyPath, JSON.stringify(policy));
    stack = await bootLocalStack({
      port: 0,
      stateDir: base,
      policyPath,
      writeEndpointsFile: true,
      sweepIntervalSeconds: false,
      release: { intervalSeconds: false },
      worker: { waitTimeSeconds: 1 },
      queue: { maxReceiveCount: 1 },
      sandbox: { faults: { ...NO_FAULTS, errorRate: 1, only: 'mutations' } },
      logs: createLocalLogs({ dir: join(base, 'logs'), print: (t) => terminal.push(t) }),
      receiver: { print: (t) => terminal.push(t) },
    });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('boots without a line on the terminal, and names its logs directory', () => {
    expect(terminal).toEqual([]);
    expect(stack.endpoints.logsDir).toBe(join(base, 'logs'));
    expect(JSON.parse(readFileSync(join(base, 'endpoints.json'), 'utf8')).logsDir).toBe(join(base, 'logs'));
    // The banner's one line on where the full lines go, and how to see them all here.
    const banner = renderBanner(stack, { sweepIntervalSeconds: false, sandboxKey: true });
    expect(banner).toContain(
      `  logs            ${join(base, 'logs')}/<function>.jsonl   (every JSON log and metric line; here only warnings and errors, AUTOPILOT_LOCAL_LOGS=all prints all)`,
    );
  });

  it('keeps a sweep’s lines in the files and prints only the Slack posts and the warnings, in short', async () => {
    await stack.runSweeper();
    const failed = () => fileLines('worker').filter((l) => JSON.parse(l).level === 'error');
    for (let i = 0; i < 150 && failed().length === 0; i++) await new Promise((r) => setTimeout(r, 100));

    // In full, in the function's own file: its log lines and its metric lines, as its log group holds them.
    const sweeper = fileLines('sweeper').map((l) => JSON.parse(l));
    expect(sweeper.some((l) => l.level === 'info' && l.message === 'action request queued')).toBe(true);
    expect(sweeper.some((l) => l._aws && 'EventsRead' in l)).toBe(true);
    const worker = fileLines('worker');
    expect(worker.some((l) => 'ConsoleApiServerErrors' in JSON.parse(l))).toBe(true);
    // metrics.jsonl (`autopilot stats --local`) still holds every metric line.
    const metrics = readFileSync(stack.endpoints.metricsFile as string, 'utf8')
      .split('\n')
      .filter(Boolean);
    expect(metrics.length).toBeGreaterThan(0);
    const kept = new Set([...fileLines('sweeper'), ...worker, ...fileLines('webhook')]);
    for (const metric of metrics) expect(kept.has(metric), metric).toBe(true);

    // The terminal: Slack posts and short warnings, never a JSON line.
    expect(terminal.some((t) => t.includes('── to Slack /channel ──'))).toBe(true);
    expect(terminal.filter((t) => t.trimStart().startsWith('{'))).toEqual([]);
    const [error] = failed();
    const short = shortLine('worker', error as string);
    expect(short).toMatch(
      /^\d\d:\d\d:\d\dZ worker {3}ERROR record failed on its last receive; SQS moves it to the DLQ: transient failure: PUT .+ \(request ev:/,
    );
    expect(terminal).toContain(short);
    const warnings = terminal.filter((t) => /^\d\d:\d\d:\d\dZ /.test(t));
    const problems = worker.filter((l) => ['warn', 'error'].includes(JSON.parse(l).level));
    expect(warnings).toEqual(problems.map((l) => shortLine('worker', l)));
  });
});
