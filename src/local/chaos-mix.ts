/**
 * The chaos run's workload: a deterministic mix of action requests drawn from the sandbox's
 * seeded state — phase approvals in pipeline order with CI retries (same effect, new request
 * id) and redeliveries (same request id), group disables and config archives by a person
 * (protected configs among them), dry runs, and poison bodies that are not requests at all.
 */
import type { ActionRequest } from '../actions/request.js';
import type { Sandbox } from '../sandbox/index.js';
import { createRng } from '../sandbox/prng.js';

export interface ChaosMessage {
  /** The message body as sent. */
  body: string;
  /** The request id, or undefined for a poison body. */
  requestId?: string;
  kind: 'approve' | 'disable' | 'archive' | 'dry-run' | 'poison';
}

/** A small seeded generator (the sandbox's mulberry32): the same mix every run. */
export function seeded(seed: number): () => number {
  return createRng(seed).next;
}

interface Generator {
  random: () => number;
  requestedAt: string;
  push: (kind: ChaosMessage['kind'], request: ActionRequest) => void;
  id: () => string;
}

/** Approvals: every phase of every trigger, in pipeline order, asked several times (CI retries and redeliveries). */
function pushApprovals(
  gen: Generator,
  triggers: Array<{ id: string; phases: Array<{ id: string }> }>,
  target: number,
): void {
  const { random, requestedAt, push, id } = gen;
  let approvals = 0;
  outer: for (let round = 0; ; round++) {
    for (const trigger of triggers) {
      for (const phase of trigger.phases) {
        if (approvals >= target) break outer;
        const copies = 1 + Math.floor(random() * 3);
        const request: ActionRequest = {
          version: 1,
          action: 'approve_phase',
          triggerId: trigger.id,
          phaseId: phase.id,
          requestedBy: { source: 'ci', id: `chaos/round-${round}` },
          requestedAt,
          requestId: id(),
        };
        for (let c = 0; c < copies && approvals < target; c++) {
          // Mostly a CI retry (new id, same effect); sometimes the very same message again.
          push('approve', random() < 0.3 ? request : { ...request, requestId: id() });
          approvals += 1;
        }
      }
    }
  }
}

/**
 * Mixes the kinds, but keeps approvals roughly in pipeline order (a queue is only roughly FIFO):
 * each message moves at most ~40 places, and the other kinds are spread through the run.
 */
function interleave(out: ChaosMessage[], random: () => number): ChaosMessage[] {
  const keyed = out.map((message, index) => ({ message, key: index + random() * 40 }));
  const mixed = keyed.sort((a, b) => a.key - b.key).map((k) => k.message);
  // The non-approval kinds were appended after the approvals: spread them through the run.
  const approvalsFirst = mixed.filter((m) => m.kind === 'approve');
  const others = mixed.filter((m) => m.kind !== 'approve');
  const result: ChaosMessage[] = [];
  const every = Math.max(1, Math.floor(mixed.length / Math.max(1, others.length)));
  let o = 0;
  for (let i = 0; i < approvalsFirst.length; i++) {
    result.push(approvalsFirst[i] as ChaosMessage);
    if (i % every === 0 && o < others.length) result.push(others[o++] as ChaosMessage);
  }
  while (o < others.length) result.push(others[o++] as ChaosMessage);
  return result;
}

/**
 * A reply URL for the requests that carry one: every person's request (as the webhook sends it)
 * and every other CI request, so that both a request told only to the channel and one told to its
 * requester too are in the run.
 */
export type ReplyUrlFor = (requestId: string) => string;

function withReply(request: ActionRequest, replyUrl: ReplyUrlFor | undefined, at: string): ActionRequest {
  const id = request.requestId;
  if (!replyUrl || !id) return request;
  if (request.requestedBy.source === 'ci' && Number(id.replace(/\D/g, '')) % 2 === 0) return request;
  return { ...request, reply: { slackResponseUrl: replyUrl(id), issuedAt: at } };
}

export function chaosMix(
  sandbox: Sandbox,
  count: number,
  seed = 7,
  at = new Date(),
  replyUrl?: ReplyUrlFor,
): ChaosMessage[] {
  const random = seeded(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const requestedAt = at.toISOString();
  const out: ChaosMessage[] = [];
  let n = 0;
  const push = (kind: ChaosMessage['kind'], asked: ActionRequest) => {
    const request = withReply(asked, replyUrl, requestedAt);
    out.push({
      kind,
      body: JSON.stringify(request),
      ...(request.requestId ? { requestId: request.requestId } : {}),
    });
  };
  const id = () => `chaos-${String(++n).padStart(5, '0')}`;
  const gen: Generator = { random, requestedAt, push, id };

  const triggers = [...sandbox.state.triggers.values()];
  const experiments = [...sandbox.state.experiments.values()].filter((e) => e.groups.length > 1);
  const configs = [...sandbox.state.configs.keys()];

  const share = { approve: 0.6, disable: 0.15, archive: 0.15, dryRun: 0.08 };
  const target = {
    approve: Math.round(count * share.approve),
    disable: Math.round(count * share.disable),
    archive: Math.round(count * share.archive),
    dryRun: Math.round(count * share.dryRun),
  };

  pushApprovals(gen, triggers, target.approve);
  for (let i = 0; i < target.disable; i++) {
    const experiment = pick(experiments);
    const group = pick(experiment.groups.slice(1)).name;
    push('disable', {
      version: 1,
      action: 'disable_groups',
      experimentId: experiment.id,
      groupNames: [group],
      requestedBy: { source: 'slack', id: 'U0ADMIN' },
      requestedAt,
      requestId: id(),
    });
  }
  for (let i = 0; i < target.archive; i++) {
    push('archive', {
      version: 1,
      action: 'archive_config',
      configId: pick(configs),
      reason: 'chaos run',
      force: random() < 0.5,
      requestedBy: { source: 'slack', id: 'U0ADMIN' },
      requestedAt,
      requestId: id(),
    });
  }
  for (let i = 0; i < target.dryRun; i++) {
    const trigger = pick(triggers);
    push('dry-run', {
      version: 1,
      action: 'approve_phase',
      triggerId: trigger.id,
      phaseId: pick(trigger.phases).id,
      requestedBy: { source: 'ci', id: 'chaos/dry-run' },
      requestedAt,
      requestId: id(),
      dryRun: true,
    });
  }
  const poisons = [
    (n: number) => `not json at all #${n}`,
    (n: number) => `{"version":1,"action":"launch_rockets","poison":${n}}`,
    (n: number) =>
      `{"version":2,"action":"approve_phase","triggerId":"trg_1","phaseId":"ph_1","poison":${n}}`,
    (n: number) =>
      `{"version":1,"action":"approve_phase","triggerId":"../roles","phaseId":"ph 1","poison":${n}}`,
  ];
  for (let p = 0; out.length < count; p++) out.push({ kind: 'poison', body: pick(poisons)(p) });

  return interleave(out, random);
}
