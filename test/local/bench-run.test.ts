import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { benchFiles, formatNumber, renderReport, sectionMarkdown } from '../../bench/run.js';

const dir = mkdtempSync(join(tmpdir(), 'autopilot-bench-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the benchmark runner', () => {
  it('finds every *.bench.ts in order, and filters by name', () => {
    for (const name of ['worker.bench.ts', 'client.bench.ts', 'types.ts', 'run.ts'])
      writeFileSync(join(dir, name), '');
    expect(benchFiles(dir)).toEqual(['client.bench.ts', 'worker.bench.ts']);
    expect(benchFiles(dir, ['work'])).toEqual(['worker.bench.ts']);
  });

  it('renders a section as a table with ratio, target and verdict', () => {
    const text = sectionMarkdown({
      file: 'x.bench.ts',
      durationMs: 1234,
      section: {
        title: 'Worker',
        rows: [
          { name: 'p50', value: 2.5, unit: 'ms', baseline: 2, target: '≤ 1.3×', pass: true },
          { name: 'rate', value: 0.85, unit: 'share', target: '≥ 0.9', pass: false },
        ],
        notes: ['measured on loopback'],
      },
    });
    expect(text).toContain('| p50 | 2.5 | ms | 2 | 1.25× | ≤ 1.3× | ✅ |');
    expect(text).toContain('| rate | 0.85 | share |  |  | ≥ 0.9 | ❌ |');
    expect(text).toContain('- measured on loopback');
  });

  it('reports a failed section without hiding the others', () => {
    const report = renderReport(
      [
        { file: 'bad.bench.ts', durationMs: 10, error: 'Error: boom' },
        {
          file: 'good.bench.ts',
          durationMs: 10,
          section: { title: 'Good', rows: [{ name: 'n', value: 1, unit: 'x' }] },
        },
      ],
      new Date('2026-11-22T00:00:00Z'),
      [1, 1, 1],
    );
    expect(report).toContain('**Failed:** Error: boom');
    expect(report).toContain('| Good | 1 | 0/0 |');
    expect(report).toContain('2026-11-22T00:00:00.000Z');
    expect(report).toMatch(/Machine: .+ × \d+/);
  });

  it('formats numbers for people', () => {
    expect(formatNumber(0.12345)).toBe('0.123');
    expect(formatNumber(12.345)).toBe('12.35');
    expect(formatNumber(123_456.7)).toBe('123,456.7');
    expect(formatNumber(undefined)).toBe('');
  });
});
