/**
 * What proving requesters costs per message (src/actions/proof.ts), against what the worker
 * does for every message anyway: `parseActionRequest` of the same body (JSON + zod). Signing
 * (webhook, sweeper) and checking (worker) are one HMAC-SHA256 each over the body; rounds are
 * interleaved with the baseline so machine noise falls on both alike. The other cost is money:
 * two generated secrets at $0.40 a month each, read with the function's own secret at start.
 */
import { pathToFileURL } from 'node:url';
import { checkRequesterProof, requesterProof } from '../src/actions/proof.js';
import { parseActionRequest } from '../src/actions/request.js';
import { sqsSafeJson } from '../src/queue/actions-queue.js';
import { median } from './stats.js';
import type { BenchSection } from './types.js';

const ROUNDS = Number(process.env.BENCH_PROOF_ROUNDS ?? 5000);
/** Signing + checking together, p50: negligible next to the SQS send and API call each message costs (tens of ms). */
const TARGET_MS = 0.05;

const round = (n: number, digits = 4) => Number(n.toFixed(digits));

export async function run(): Promise<BenchSection> {
  const keys = { webhook: 'k'.repeat(64), sweeper: 's'.repeat(64) };
  const body = sqsSafeJson({
    version: 1,
    action: 'approve_phase',
    triggerId: 'trg_1',
    phaseId: 'ph_2',
    requestedBy: { source: 'slack', id: 'U0ADMIN' },
    requestedAt: '2026-11-23T10:00:00Z',
    reason: 'ramp looks good, error rates flat since the last phase',
    requestId: 'slack-0123456789abcdef0123456789abcdef',
    reply: { slackResponseUrl: 'https://hooks.slack.com/commands/T0001/1234567890/abcdefghijklmnop' },
  });
  const sign: number[] = [];
  const check: number[] = [];
  const parse: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    let t = performance.now();
    const proof = requesterProof('webhook', keys.webhook, body);
    sign.push(performance.now() - t);
    t = performance.now();
    if (!checkRequesterProof('slack', body, proof, keys).ok) throw new Error('proof did not check');
    check.push(performance.now() - t);
    t = performance.now();
    if (!parseActionRequest(body).ok) throw new Error('body did not parse');
    parse.push(performance.now() - t);
  }
  const baseline = median(parse);
  const both = median(sign) + median(check);
  return {
    title: 'Requester proofs',
    rows: [
      {
        name: 'sign p50 (webhook, sweeper)',
        value: round(median(sign)),
        unit: 'ms',
      },
      {
        name: 'check p50 (worker)',
        value: round(median(check)),
        unit: 'ms',
      },
      {
        name: 'sign + check p50',
        value: round(both),
        unit: 'ms',
        target: `≤ ${TARGET_MS} ms`,
        pass: both <= TARGET_MS,
      },
      { name: 'for scale: parseActionRequest of the same body p50', value: round(baseline), unit: 'ms' },
      { name: 'message attribute added', value: `v1.webhook.`.length + 64, unit: 'bytes' },
    ],
    notes: [
      `${ROUNDS} rounds, interleaved; absolute figures against the target (no ratio: nothing else does this work). For scale only, parseActionRequest of the same ${body.length}-byte body, which the worker runs for every message.`,
    ],
  };
}

if (process.argv[1] && pathToFileURL(process.argv[1]).href === import.meta.url) {
  console.log(JSON.stringify(await run(), null, 2));
}
