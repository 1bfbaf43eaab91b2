/**
 * The CLI escapes untrusted fields in its tables (src/cli/io.ts, `printable`), but two outputs
 * are lines, not tables: `autopilot audit --request/--target` (a request's story) and the outcome
 * line of `enqueue --wait` (whose reason names the requester of a request holding the id). A
 * requester id is any queue sender's choice: printed raw, an escape sequence in it drives the
 * operator's (or the CI log's) terminal and a newline forges a line, e.g. a fake "approved" step.
 * The real worker on the emulators (pinned clock), the CLI in-process.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { captureIo } from '../helpers/cli-io.js';
import { benchForFile } from '../worker/fixture.js';
import { emulatorEnv, runGate, workerTakes } from './gate.js';

const ESC = '\u001b';
const FORGED = '2026-11-23T10:00:02.000Z  approved  rule CI in office hours: looks fine';
/** A requester id with an escape sequence and a forged story line after a newline. */
const EVIL = `evil${ESC}[2J\n  ${FORGED}`;

/** Characters a terminal acts on (a newline between lines is the output's own). */
const unprintable = (text: string) =>
  [...text].filter((c) => {
    const n = c.codePointAt(0) ?? 0;
    return (n < 0x20 && n !== 0x0a) || (n >= 0x7f && n <= 0x9f);
  });

const bench = benchForFile();
beforeAll(async () => {
  bench.clock.now = new Date('2026-11-23T10:00:00Z');
  // The bench policy denies this requester: its story holds the requester id as sent.
  await bench.send({
    triggerId: 'trg_esc',
    phaseId: 'ph_1',
    requestId: 'rr-escape-1',
    requestedBy: { source: 'ci', id: EVIL },
  });
  await bench.run(bench.worker(), await bench.receive());
});

const env = () => emulatorEnv(bench);

describe('CLI lines with untrusted fields', () => {
  it('audit --request prints the story without control characters or forged lines', async () => {
    const io = captureIo({ env: env(), now: () => bench.clock.now });
    const code = await runCli(['audit', '--request', 'rr-escape-1', '--table', bench.table.tableName], io.io);
    expect(code, io.err()).toBe(0);
    const text = io.out();
    expect(text).toContain('rr-escape-1');
    expect(unprintable(text)).toEqual([]);
    expect(text.split('\n').filter((line) => line.trim() === FORGED)).toEqual([]);
    expect(text).toContain('\\u001b[2J\\n');
  });

  it("enqueue --wait's outcome line escapes the other requester it names", async () => {
    const { code, io } = await runGate(bench, {
      triggerId: 'trg_esc2',
      phaseId: 'ph_1',
      requestedBy: 'ci:pipeline',
      requestId: 'rr-escape-1',
      start: bench.clock.now.getTime() + 60_000,
      onPause: workerTakes(bench, bench.worker()),
    });
    expect(code, io.err()).toBe(3);
    const text = io.err();
    expect(text).toContain('belongs to another request');
    expect(unprintable(text)).toEqual([]);
    expect(text.split('\n').filter((line) => line.trim() === FORGED)).toEqual([]);
  });
});
