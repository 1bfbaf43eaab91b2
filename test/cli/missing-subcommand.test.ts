/**
 * README "CLI": exit 2 is a bad command line, and a bad command line says what is wrong on
 * stderr (src/cli/errors.ts: "message + usage on stderr"), as `autopilot` alone and
 * `autopilot frobnicate` do. A command group called without its sub-command (`autopilot dlq`)
 * exited 2 but printed only the usage, on stdout: a script capturing stdout took the usage for
 * output, and nothing said what was missing.
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { captureIo } from '../helpers/cli-io.js';

describe('a command group without its sub-command', () => {
  it.each([
    ['policy', 'check'],
    ['enqueue', 'approve'],
    ['dlq', 'list'],
    ['slack', 'manifest'],
  ])(
    'autopilot %s: exit 2, what is missing and the usage on stderr, nothing on stdout',
    async (group, sub) => {
      const t = captureIo();
      expect(await runCli([group], t.io)).toBe(2);
      expect(t.out()).toBe('');
      expect(t.err()).toContain(`autopilot: missing ${group} command`);
      expect(t.err()).toContain(sub);
    },
  );

  it.each([['policy'], ['enqueue'], ['dlq'], ['slack']])(
    'autopilot %s --help: usage on stdout, exit 0',
    async (group) => {
      const t = captureIo();
      expect(await runCli([group, '--help'], t.io)).toBe(0);
      expect(t.out()).toContain('Usage:');
      expect(t.err()).toBe('');
    },
  );
});
