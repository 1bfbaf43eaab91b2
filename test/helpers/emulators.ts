/**
 * The emulators of a test file (fauxqs and dynalite): started before its tests, stopped after
 * them. `emu` and `table` (their state table) are the same objects throughout, so they can be
 * taken apart where the file starts; their fields are there once the file's `beforeAll` ran: use
 * them in hooks and tests only.
 */
import { afterAll, beforeAll } from 'vitest';
import { type EmulatorOptions, type Emulators, startEmulators } from '../../src/local/emulators.js';
import type { StateTable } from '../../src/state/table.js';

export function emulatorsForFile(options?: EmulatorOptions): { emu: Emulators; table: StateTable } {
  const emu = {} as Emulators;
  const table = {} as StateTable;
  let started: Emulators | undefined;
  beforeAll(async () => {
    started = await startEmulators(options);
    Object.assign(emu, started);
    Object.assign(table, { client: started.dynamo, tableName: started.tableName });
  });
  afterAll(async () => {
    await started?.stop();
  });
  return { emu, table };
}
