/** `--since` with an impossible calendar date must be a usage error, not a silently shifted instant. */
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/cli/errors.js';
import { policyReplayCommand } from '../../src/cli/policy-replay.js';
import type { StateTable } from '../../src/state/table.js';
import { captureIo } from '../helpers/cli-io.js';

const REPO = resolve(import.meta.dirname, '../..');

describe('policy replay / audit --since', () => {
  it('refuses 2026-02-30 instead of reading it as 2 March', async () => {
    const scans: string[] = [];
    const table = {
      tableName: 'fake',
      client: {
        send: async (command: { input: { ExpressionAttributeValues: Record<string, { S: string }> } }) => {
          scans.push(command.input.ExpressionAttributeValues[':since']?.S ?? '');
          return { Items: [] };
        },
      },
    } as unknown as StateTable;
    const t = captureIo({ cwd: REPO });
    const run = policyReplayCommand(['--policy', 'policy.json', '--since', '2026-02-30T10:00:00Z'], t.io, {
      table,
    });
    await expect(run).rejects.toBeInstanceOf(UsageError);
    // It used to scan from 2026-03-02T10:00:00Z, a day the user never typed.
    expect(scans).toEqual([]);
  });
});
