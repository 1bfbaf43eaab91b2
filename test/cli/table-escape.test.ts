/**
 * `autopilot policy replay` (and every other table the CLI prints) shows fields of the audit
 * trail that came from outside: a requester id any queue sender chooses, group names an event
 * rule fills from a logged event's metadata. Printed raw, an escape sequence in one of them
 * drives the operator's terminal (clears the screen, recolours or rewrites lines) and a newline
 * forges a row of the table. They are shown escaped, one row per record.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { type CliIo, renderTable } from '../../src/cli/io.js';
import { policyReplayCommand } from '../../src/cli/policy-replay.js';
import type { StateTable } from '../../src/state/table.js';

const ESC = '\u001b';
/** A character a terminal acts on or reorders by (a newline between rows is the table's own). */
const unprintable = (text: string) =>
  [...text].filter((c) => {
    const n = c.codePointAt(0) ?? 0;
    return (
      (n < 0x20 && n !== 0x0a) ||
      (n >= 0x7f && n <= 0x9f) ||
      (n >= 0x202a && n <= 0x202e) ||
      (n >= 0x2066 && n <= 0x2069)
    );
  });
const evilRequester = `evil${ESC}[2J${ESC}[32m`;
const evilGroup = `g1\napprove_phase  trg_9  ci:trusted  deny (otherwise)  approve (CI)`;

/** One audit item as the worker writes it: a groups-disabled decision with its inputs. */
function auditItem(): Record<string, AttributeValue> {
  const request = {
    version: 1,
    action: 'disable_groups',
    experimentId: 'exp_1',
    groupNames: [evilGroup],
    requestedBy: { source: 'ci', id: evilRequester },
    requestedAt: '2026-11-23T10:00:00.000Z',
    requestId: 'req-1',
  };
  const target = `experiment exp_1 groups ${evilGroup}`;
  return {
    pk: { S: 'audit#req-1' },
    sk: { S: 'record#2026-11-23T10:00:01.000Z#groups-disabled#abcd1234' },
    requestId: { S: 'req-1' },
    at: { S: '2026-11-23T10:00:01.000Z' },
    action: { S: 'disable_groups' },
    target: { S: target },
    effectKey: { S: 'disable_groups#exp_1#g1' },
    requester: { S: `ci:${evilRequester}` },
    rule: { S: 'actions.disable_groups' },
    reason: { S: 'ok' },
    result: { S: 'groups-disabled' },
    dryRun: { BOOL: false },
    inputs: {
      S: JSON.stringify({ request, now: '2026-11-23T10:00:00.000Z', pause: { paused: false } }),
    },
  };
}

describe('untrusted audit fields in CLI tables', () => {
  it('policy replay prints no control character and keeps one line per changed record', async () => {
    const table: StateTable = {
      tableName: 'state',
      client: { send: (async () => ({ Items: [auditItem()] })) as unknown as StateTable['client']['send'] },
    };
    const out: string[] = [];
    const io: CliIo = {
      stdout: (text) => out.push(text),
      stderr: (text) => out.push(text),
      env: {},
      cwd: process.cwd(),
      now: () => new Date('2026-11-24T00:00:00Z'),
    };
    // The new policy has no actions.disable_groups section: the old approval becomes a denial.
    const code = await policyReplayCommand(['--policy', 'new.json', '--since', '7d'], io, {
      read: () => JSON.stringify({ version: 1 }),
      table,
    });
    expect(code).toBe(0);
    const text = out.join('\n');
    expect(text).toContain('deny (otherwise)');
    expect(unprintable(text)).toEqual([]);
    const rows = text.split('\n').filter((line) => line.startsWith('req-1'));
    expect(rows).toHaveLength(1);
    // Nothing forged: only the real row mentions a decision for trg_9.
    expect(text.split('\n').filter((line) => line.startsWith('approve_phase'))).toHaveLength(0);
    expect(rows[0]).toContain('\\u001b');
  });

  it('renderTable escapes control and bidi characters in every cell', () => {
    const text = renderTable(['a', 'b'], [[`x${ESC}[31m`, 'line1\nline2\r\u202Eevil']]);
    expect(unprintable(text)).toEqual([]);
    expect(text.split('\n')).toHaveLength(3);
    expect(text).toContain('x\\u001b[31m');
    expect(text).toContain('line1\\nline2\\r\\u202eevil');
  });
});
