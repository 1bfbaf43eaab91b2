/**
 * `status` reads our own state table (the pause item), not the Console API: when the table
 * fails, the reply says the state table did not answer, never that the platform did not.
 */
import { describe, expect, it } from 'vitest';
import { answerRead, type ReadContext } from '../../src/webhook/reads.js';
import { NO_CONSOLE, testPolicy } from './harness.js';

const T0 = Date.parse('2026-11-22T10:00:00Z');

function context(readPause: ReadContext['status']['readPause'], deadlineMs = 5_000): ReadContext {
  return {
    console: NO_CONSOLE,
    policy: testPolicy(),
    status: { readPause, queueDepth: async () => 3 },
    userId: 'U0READER',
    slash: '/autopilot',
    deadline: T0 + deadlineMs,
    now: () => T0,
  };
}

describe('status when the state table fails', () => {
  it('says the state table cannot be read, not that the platform failed', async () => {
    const missingTable = Object.assign(new Error('Requested resource not found'), {
      name: 'ResourceNotFoundException',
    });
    const read = await answerRead(
      context(async () => {
        throw missingTable;
      }),
      { name: 'status' },
    );
    expect(read.outcome).toBe('state_unreachable');
    expect(read.reply.text).toBe('The state table cannot be read right now; please try again.');
    expect(JSON.stringify(read.reply)).not.toMatch(/platform/i);
  });

  it('says the state table is slow when the deadline passes on it', async () => {
    const read = await answerRead(
      context(() => new Promise(() => undefined), 20),
      { name: 'status' },
    );
    expect(read.outcome).toBe('state_unconfirmed');
    expect(read.reply.text).toBe('The state table is slow to answer right now; please try again.');
  });
});
