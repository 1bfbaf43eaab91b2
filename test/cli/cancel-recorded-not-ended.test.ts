/**
 * `autopilot cancel` marks the held request cancelled, then ends it at once. When the mark is
 * written but the ending fails (the table throttles, or stops answering), the request IS cancelled:
 * it is never executed, and the release tick ends it within a minute. The CLI printed only the raw
 * SDK error and exited 1, as if nothing had happened; a re-run then said "already cancelled".
 * It now says the cancel is recorded and what happens next (stdout), the error on stderr, and
 * exits 3: recorded, not ended now.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { readFinal } from '../../src/state/audit.js';
import { listHeld } from '../../src/state/held.js';
import { captureIo } from '../helpers/cli-io.js';
import { type Bench, basePolicy, startBench } from '../worker/fixture.js';

let bench: Bench;
let cwd = '';
let proxy: Server;
let proxyUrl = '';
/** Once the cancel's mark landed, the table throttles every call. */
let throttleAfterMark = false;
let throttling = false;

beforeAll(async () => {
  bench = await startBench();
  cwd = mkdtempSync(join(tmpdir(), 'autopilot-review-cancel-recorded-'));
  writeFileSync(join(cwd, 'policy.json'), JSON.stringify(basePolicy(bench.slack.origin)));
  bench.clock.now = new Date('2026-11-23T20:00:00Z'); // outside office hours: held until Tuesday
  await bench.send({ triggerId: 'trg_1', phaseId: 'ph_1', requestId: 'night-1' });
  await bench.run(bench.worker(), await bench.receive());
  const dynalite = bench.emulators.dynamodbEndpoint;
  proxy = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (c: Buffer) => chunks.push(c));
    request.on('end', async () => {
      const body = Buffer.concat(chunks).toString('utf8');
      if (throttling) {
        response.writeHead(400, { 'content-type': 'application/x-amz-json-1.0' });
        response.end(
          '{"__type":"com.amazonaws.dynamodb.v20120810#ThrottlingException","message":"Rate of requests exceeds the allowed throughput."}',
        );
        return;
      }
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(request.headers))
        if (typeof v === 'string' && k !== 'host' && k !== 'content-length') headers[k] = v;
      const answer = await fetch(`${dynalite}${request.url ?? '/'}`, { method: 'POST', headers, body });
      const text = await answer.text();
      const target = String(request.headers['x-amz-target'] ?? '');
      if (throttleAfterMark && target.endsWith('.UpdateItem') && body.includes('cancelledBy') && answer.ok)
        throttling = true;
      response.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? '' });
      response.end(text);
    });
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => proxy?.close(() => resolve()));
  await bench?.close();
});

function cli(endpoint: string) {
  return captureIo({
    env: { STATE_TABLE_NAME: bench.table.tableName, AWS_ENDPOINT_URL_DYNAMODB: endpoint, USER: 'alice' },
    cwd,
    now: () => new Date('2026-11-23T20:30:00Z'),
  });
}

describe('autopilot cancel whose mark is written but whose ending fails', () => {
  it('says the cancel is recorded and the tick ends it, and exits 3', async () => {
    throttleAfterMark = true;
    const first = cli(proxyUrl);
    expect(await runCli(['cancel', 'night-1', '--reason', 'wrong build'], first.io), first.err()).toBe(3);
    expect(throttling).toBe(true);
    expect(first.out()).toContain('night-1 is cancelled');
    expect(first.out()).toMatch(/recorded/);
    expect(first.out()).toMatch(/release tick ends it/);
    expect(first.err()).toContain('ThrottlingException');
    // Marked, not ended: held with the mark, no final yet.
    const held = (await listHeld(bench.table)).find((h) => h.requestId === 'night-1');
    expect(held?.cancel).toMatchObject({ by: 'cli:alice' });
    expect(await readFinal(bench.table, 'night-1')).toBeUndefined();
  }, 30_000);
});
