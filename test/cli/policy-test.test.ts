/**
 * `autopilot policy test`: the shipped cases pass against the shipped policy; a wrong
 * expectation fails with exit 1 and says why; a bad cases file exits 2 with the zod path;
 * wall times in the policy's zone work across daylight-saving changes, and a wall time that
 * never or twice shows is refused rather than guessed. The cases JSON Schema is committed.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, describe, expect, it } from 'vitest';
import type { CliIo } from '../../src/cli/io.js';
import { CASES_SCHEMA_PATH } from '../../src/cli/policy-schema.js';
import { runCli } from '../../src/cli/run.js';
import { caseInstant } from '../../src/policy/cases.js';
import { CaseError } from '../../src/policy/errors.js';
import { casesJsonSchemaText } from '../../src/policy/json-schema.js';

const REPO = resolve(import.meta.dirname, '../..');
const dir = mkdtempSync(join(tmpdir(), 'autopilot-policy-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const shipped = JSON.parse(readFileSync(join(REPO, 'policy.cases.json'), 'utf8'));

async function run(...args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = {
    stdout: (t) => out.push(t),
    stderr: (t) => err.push(t),
    env: {},
    cwd: REPO,
    // The cases carry their own times: the CLI's clock must not matter.
    now: () => new Date('2031-07-04T03:00:00Z'),
  };
  const code = await runCli(['policy', 'test', ...args], io);
  return { code, out: out.join('\n'), err: err.join('\n') };
}

function casesFile(name: string, value: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify(value));
  return path;
}

describe('autopilot policy test', () => {
  it("passes the repository's cases against its policy, covering every approval rule", async () => {
    const result = await run('policy.json', 'policy.cases.json');
    expect(result.code, result.err).toBe(0);
    expect(result.out).toMatch(/(\d+) passed, 0 failed/);
    const policy = JSON.parse(readFileSync(join(REPO, 'policy.json'), 'utf8'));
    for (const rule of policy.approvals.rules as Array<{ name: string }>)
      expect(result.out).toContain(rule.name);
    for (const builtin of ['freeze:', 'pause', 'veto', 'chat grant', 'otherwise', 'protect', 'maxDeferHours'])
      expect(result.out).toContain(builtin);
  });

  it('fails with exit 1 and names the case, what it expected and what it got', async () => {
    const wrong = structuredClone(shipped);
    wrong.cases[1].expect = { outcome: 'deny', rule: 'otherwise' };
    const result = await run('policy.json', casesFile('wrong.json', wrong));
    expect(result.code).toBe(1);
    expect(result.out).toContain(
      `FAIL ${wrong.cases[1].name}: outcome approve; rule "CI promotes any phase in office hours"`,
    );
    expect(result.out).toMatch(/1 failed/);
  });

  it('checks the reason pattern', async () => {
    const wrong = {
      cases: [{ ...shipped.cases[2], expect: { outcome: 'defer', reason: 'never says this' } }],
    };
    const result = await run('policy.json', casesFile('reason.json', wrong));
    expect(result.code).toBe(1);
    expect(result.out).toContain('reason does not match /never says this/');
  });

  it('exits 2 with the zod path for a bad cases file', async () => {
    const bad = { cases: [{ ...shipped.cases[0], expect: { outcome: 'maybe' } }] };
    const result = await run('policy.json', casesFile('bad.json', bad));
    expect(result.code).toBe(2);
    expect(result.err).toContain('cases[0].expect.outcome');
  });

  it('exits 2 for a reason that is not a regular expression, naming the case and the path', async () => {
    const bad = {
      cases: [
        shipped.cases[0],
        { ...shipped.cases[1], name: 'bad regex', expect: { outcome: 'approve', reason: 'rule (r' } },
      ],
    };
    const result = await run('policy.json', casesFile('regex.json', bad));
    expect(result.code).toBe(2);
    expect(result.err).toContain('cases[1].expect.reason: not a regular expression');
    expect(result.err).toContain('(case "bad regex")');
  });

  it('exits 2 for a cases file that is not JSON, and for a repeated case name', async () => {
    const path = join(dir, 'not.json');
    writeFileSync(path, '{ nope');
    expect((await run('policy.json', path)).code).toBe(2);
    const twice = { cases: [shipped.cases[0], shipped.cases[0]] };
    const result = await run('policy.json', casesFile('twice.json', twice));
    expect(result.code).toBe(2);
    expect(result.err).toContain('used twice');
  });

  it('prints JSON for machines', async () => {
    const result = await run('policy.json', 'policy.cases.json', '--json');
    const parsed = JSON.parse(result.out);
    expect(parsed.failed).toBe(0);
    expect(parsed.results[0]).toMatchObject({ name: shipped.cases[0].name, pass: true });
  });

  it('fails a case whose wall time does not exist, rather than guessing', async () => {
    const gap = { cases: [{ ...shipped.cases[1], name: 'in the gap', at: '2027-03-28T02:30' }] };
    const result = await run('policy.json', casesFile('gap.json', gap));
    expect(result.code).toBe(1);
    expect(result.out).toContain('daylight-saving gap');
  });
});

describe('case times', () => {
  const zone = 'Europe/Berlin';
  it('reads wall times in the policy zone, winter and summer', () => {
    expect(caseInstant('2026-11-30T09:00', zone).toISOString()).toBe('2026-11-30T08:00:00.000Z');
    expect(caseInstant('2027-07-15T09:00', zone).toISOString()).toBe('2027-07-15T07:00:00.000Z');
  });
  it('takes explicit offsets as given', () => {
    expect(caseInstant('2026-11-30T09:00:00-05:00', zone).toISOString()).toBe('2026-11-30T14:00:00.000Z');
  });
  it('refuses a wall time in the spring gap and one repeated in autumn', () => {
    expect(() => caseInstant('2027-03-28T02:30', zone)).toThrow(CaseError);
    expect(() => caseInstant('2027-10-31T02:30', zone)).toThrow(/twice/);
    expect(caseInstant('2027-10-31T02:30+02:00', zone).toISOString()).toBe('2027-10-31T00:30:00.000Z');
  });
  it.each([
    [
      'a day past the end of its month',
      '2026-11-31T10:00',
      '2026-11-31 is not a date: November 2026 has 30 days',
    ],
    [
      '29 February of a common year',
      '2027-02-29T10:00',
      '2027-02-29 is not a date: February 2027 has 28 days',
    ],
    ['a 13th month', '2026-13-01T10:00', '2026-13-01 is not a date: months run from 01 to 12'],
    ['day 00', '2026-11-00T10:00', '2026-11-00 is not a date'],
    ['24:00', '2026-11-24T24:00', '24:00 is not a time of day: hours run from 00 to 23'],
    ['minute 60', '2026-11-24T10:60', '10:60 is not a time of day'],
  ])('refuses %s, rather than moving it to another day', (_name, text, message) => {
    expect(() => caseInstant(text, zone)).toThrow(CaseError);
    expect(() => caseInstant(text, zone)).toThrow(message);
    expect(() => caseInstant(text, zone)).not.toThrow(/daylight-saving/);
  });
  it('still reads 29 February of a leap year and the last second of a day', () => {
    expect(caseInstant('2028-02-29T10:00', zone).toISOString()).toBe('2028-02-29T09:00:00.000Z');
    expect(caseInstant('2026-11-24T23:59:59', zone).toISOString()).toBe('2026-11-24T22:59:59.000Z');
  });
});

describe('the cases JSON Schema', () => {
  it('is the committed output of npm run policy:schema', () => {
    expect(readFileSync(CASES_SCHEMA_PATH, 'utf8')).toBe(casesJsonSchemaText());
  });
  it('accepts the shipped cases and rejects an unknown key', () => {
    const validate = new Ajv2020({ strict: false }).compile(JSON.parse(casesJsonSchemaText()));
    expect(validate(shipped), JSON.stringify(validate.errors)).toBe(true);
    expect(validate({ cases: [{ ...shipped.cases[0], expcet: {} }] })).toBe(false);
  });
});

describe('cdk synth -c policyTests', () => {
  it('refuses to synth when a case fails, naming it in one line', async () => {
    const { spawnSync } = await import('node:child_process');
    const wrong = structuredClone(shipped);
    wrong.cases[0].expect = { outcome: 'approve' };
    const cases = casesFile('synth-wrong.json', wrong);
    const outdir = mkdtempSync(join(tmpdir(), 'autopilot-synth-'));
    try {
      const run = spawnSync(process.execPath, ['--import', 'tsx', join(REPO, 'infra/app.ts')], {
        cwd: REPO,
        encoding: 'utf8',
        timeout: 60_000,
        env: { ...process.env, CDK_OUTDIR: outdir, CDK_CONTEXT_JSON: JSON.stringify({ policyTests: cases }) },
      });
      expect(run.status).toBe(1);
      expect(run.stderr.trim().split('\n')).toEqual([
        `console-autopilot: policy tests failed (1 of ${wrong.cases.length}) in ${cases}: "${wrong.cases[0].name}" (expected approve; outcome ask)`,
      ]);
    } finally {
      rmSync(outdir, { recursive: true, force: true });
    }
  });

  it('lets the shipped cases through', async () => {
    const { assertPolicyTestsPass } = await import('../../infra/policy-tests.js');
    expect(assertPolicyTestsPass('policy.json', 'policy.cases.json', REPO)).toBe(shipped.cases.length);
  });
});
