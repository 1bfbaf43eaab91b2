/**
 * The veto on an effect is the first Deny's (src/state/veto.ts): a later Deny by another person
 * leaves it as written and reads back whose it is; the same person's again is theirs (a retry, a
 * second click), not rewritten; a veto past its expiry that TTL has not deleted yet is replaced, or
 * the later Deny would go with it. Against dynalite, at fixed times.
 */
import { expect, it } from 'vitest';
import { putItem } from '../../src/state/dynamo.js';
import { readVeto, vetoItemKey, writeVeto } from '../../src/state/veto.js';
import { emulatorsForFile } from '../helpers/emulators.js';

const { table } = emulatorsForFile();

const AT = '2026-11-23T10:00:00.000Z';
const LATER = '2026-11-23T10:00:30.000Z';

it('keeps the first Deny and answers a later one with it', async () => {
  const first = await writeVeto(table, 'fx-1', { by: 'slack:U1', at: AT, reason: 'not today' });
  expect(first).toEqual({ recorded: true, veto: { by: 'slack:U1', at: AT, reason: 'not today' } });
  const second = await writeVeto(table, 'fx-1', { by: 'slack:U2', at: LATER });
  expect(second).toEqual({ recorded: false, veto: { by: 'slack:U1', at: AT, reason: 'not today' } });
  expect(await readVeto(table, 'fx-1')).toEqual({ by: 'slack:U1', at: AT, reason: 'not today' });
});

it("takes the same person's Deny again as theirs, without rewriting its time", async () => {
  await writeVeto(table, 'fx-2', { by: 'slack:U1', at: AT });
  expect(await writeVeto(table, 'fx-2', { by: 'slack:U1', at: LATER })).toEqual({
    recorded: true,
    veto: { by: 'slack:U1', at: AT },
  });
  expect(await readVeto(table, 'fx-2')).toEqual({ by: 'slack:U1', at: AT });
});

it('replaces a veto past its expiry that is still in the table', async () => {
  const expiredAt = Math.floor(Date.parse(AT) / 1000) - 60;
  await putItem(table, {
    ...vetoItemKey('fx-3'),
    by: { S: 'slack:U1' },
    at: { S: '2026-08-01T00:00:00.000Z' },
    expiresAt: { N: String(expiredAt) },
  });
  expect(await writeVeto(table, 'fx-3', { by: 'slack:U2', at: AT })).toEqual({
    recorded: true,
    veto: { by: 'slack:U2', at: AT },
  });
  expect(await readVeto(table, 'fx-3')).toEqual({ by: 'slack:U2', at: AT });
});
