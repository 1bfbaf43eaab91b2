/**
 * On a counter the previous version kept, a run of missing tickets that reaches 25 above
 * expiredBelow went on counting and never matched: the walk voided every ticket down to 0 (976
 * voids, 1,021 requests) and an idle budget refused. The run counts as expired once below.
 */
import { describe, expect, it } from 'vitest';
import { ApiTimeoutError } from '../../src/console/index.js';
import { putItem } from '../../src/state/dynamo.js';
import { createSharedMutationBudget } from '../../src/state/mutation-budget.js';
import { COUNTER } from '../../src/state/mutation-numbers.js';
import { createManualClock } from '../console/helpers/manual-clock.js';
import { budgetTables } from './budget-tables.js';

const tables = budgetTables('review-regress4-missingrun');

async function run(
  name: string,
  counter: Record<string, { N: string }>,
  limits: { max: number; perMs: number }[],
) {
  const table = await tables.fresh(name);
  // The previous version's counter: number 20,000 taken, its tickets long expired (TTL). Idle.
  await putItem(table, { ...COUNTER, n: { N: '20000' }, ...counter });
  const clock = createManualClock();
  let requests = 0;
  let puts = 0;
  const send = table.client.send.bind(table.client);
  table.client.send = (async (command: { constructor: { name: string } }) => {
    requests++;
    if (command.constructor.name === 'PutItemCommand') puts++;
    await clock.advance(5); // each DynamoDB request takes 5 ms
    return send(command as never);
  }) as unknown as typeof table.client.send;
  try {
    const budget = createSharedMutationBudget(table, { limits, clock });
    const outcome = await budget.acquire({ deadline: clock.now() + 5_000 }).then(
      () => 'granted',
      (error: unknown) => (error instanceof ApiTimeoutError ? 'refused' : String(error)),
    );
    return { outcome, requests, puts };
  } finally {
    table.client.send = send;
  }
}

describe('review regress4: a run of missing tickets that starts above expiredBelow', () => {
  it('an idle legacy budget with a limit of 10 per second grants within 5 s after a bounded walk', async () => {
    const { outcome, requests, puts } = await run('small-limit', {}, [{ max: 10, perMs: 1_000 }]);
    // Bounded: at most 500 / 10 numbers near the mark and 25 missing below it are voided.
    expect({ outcome, boundedPuts: puts < 200 }, `${requests} requests, ${puts} tickets voided`).toEqual({
      outcome: 'granted',
      boundedPuts: true,
    });
  }, 240_000);
});
