/** The CLI's io for in-process runs: what a command printed, on which stream, with a pinned clock. */
import type { CliIo } from '../../src/cli/io.js';

export function captureIo(options: Partial<Omit<CliIo, 'stdout' | 'stderr'>> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = {
    env: {},
    cwd: process.cwd(),
    now: () => new Date('2026-11-23T10:00:00Z'),
    ...options,
    stdout: (text) => out.push(text),
    stderr: (text) => err.push(text),
  };
  return { io, out: () => out.join('\n'), err: () => err.join('\n') };
}
