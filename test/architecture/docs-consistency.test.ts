/**
 * The operator's manual against the code: README.md and docs/*.md are what an operator acts
 * on, so a document that names an alarm the stack lacks, leaves out a metric or a context key,
 * prices the stack from a stale alarm count, or says a function holds a grant it does not is a
 * defect. Each check reads the document and compares it with the real source of truth (the
 * synthesized stack, the metric catalogue, the context keys, the chat grammar, the grants,
 * the CLI's usage texts), so the next change to one side without the other fails here.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { Alarm } from 'aws-cdk-lib/aws-cloudwatch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTEXT_KEYS } from '../../infra/context.js';
import { DEFAULT_ALARM_THRESHOLDS, SAVED_QUERIES } from '../../infra/operations.js';
import { WORKER_TABLE_GRANTS } from '../../infra/table-grants.js';
import { SIGNERS } from '../../src/actions/proof.js';
import { runCli, USAGE } from '../../src/cli/run.js';
import { METRIC_CATALOGUE } from '../../src/observability/metrics.js';
import { MAX_RECEIVE_COUNT_VARIABLE } from '../../src/queue/redrive.js';
import { ROTATION_GRACE_MS } from '../../src/secrets/previous-keys.js';
import { requesterKeyVariable } from '../../src/secrets/secrets.js';
import { ITEM_FAMILIES } from '../../src/state/table.js';
import { COMMANDS } from '../../src/webhook/commands.js';
import { RESPECT_REVIEW_SETTINGS_VARIABLE } from '../../src/wiring/review-settings.js';
import { type Synthesized, synthesize } from '../infra/synth.js';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
const chatDoc = readFileSync(new URL('../../docs/chat.md', import.meta.url), 'utf8');

/** The text of README's section `## title` (up to the next `## `). */
function section(title: string): string {
  const start = readme.indexOf(`\n## ${title}\n`);
  expect(start, `README section "${title}"`).toBeGreaterThanOrEqual(0);
  const end = readme.indexOf('\n## ', start + 1);
  return readme.slice(start, end < 0 ? undefined : end);
}

/** The rows of the first Markdown table whose header starts with `header`, as trimmed cells. */
function tableRows(text: string, header: string): string[][] {
  const lines = text.split('\n');
  const at = lines.findIndex((line) => line.startsWith(header));
  expect(at, `table "${header}"`).toBeGreaterThanOrEqual(0);
  const rows: string[][] = [];
  for (const line of lines.slice(at + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(
      line
        .slice(1, -1)
        .split(/(?<!\\)\|/)
        .map((cell) => cell.trim()),
    );
  }
  return rows;
}

const ticked = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);

let s: Synthesized;
beforeAll(() => {
  s = synthesize({}, { bundle: false });
}, 120_000);
afterAll(() => s?.cleanup());

describe('README "Operations": alarms', () => {
  const alarmIds = () =>
    s.stack.node
      .findAll()
      .filter((c): c is Alarm => c instanceof Alarm)
      .map((c) => c.node.id)
      .sort();

  it('names exactly the alarms the stack creates', () => {
    const ops = section('Operations');
    const start = ops.indexOf('**Alarms**');
    const paragraph = ops.slice(start, ops.indexOf('Thresholds are context values', start));
    // Alarm names are capitalised; the context keys in the same paragraph are not.
    const named = [...new Set(ticked(paragraph).filter((name) => /^[A-Z][A-Za-z]+$/.test(name)))].sort();
    expect(named).toEqual(alarmIds());
  });

  it('prices the alarms the stack creates ("What it costs at rest"), $0.10 per metric an alarm reads', () => {
    const alarms = Object.values(s.template.findResources('AWS::CloudWatch::Alarm')) as Array<{
      Properties: { Metrics?: Array<{ MetricStat?: unknown }> };
    }>;
    const metricsOf = (a: (typeof alarms)[number]) =>
      a.Properties.Metrics ? a.Properties.Metrics.filter((m) => m.MetricStat).length : 1;
    const cost = alarms.reduce((sum, a) => sum + 0.1 * metricsOf(a), 0);
    const multi = alarms.filter((a) => metricsOf(a) > 1);

    const costs = section('Deploy').slice(section('Deploy').indexOf('### What it costs at rest'));
    const line =
      /(\d+) CloudWatch\s+alarms \$(\d+\.\d\d) \((\w+) sum a metric over the three functions: \$0\.30 each(?:; (\w+) compares? two metrics: \$0\.10 each)?\)/.exec(
        costs,
      );
    expect(line, 'the alarms line of "What it costs at rest"').not.toBeNull();
    const words: Record<string, number> = { one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7 };
    expect(Number(line![1])).toBe(alarms.length);
    expect(Number(line![2])).toBeCloseTo(cost, 2);
    expect(words[line![3]!]).toBe(multi.filter((a) => metricsOf(a) === 3).length);
    expect(words[line![4] ?? 'zero'] ?? 0).toBe(multi.filter((a) => metricsOf(a) === 2).length);
    expect(multi.every((a) => metricsOf(a) === 3 || metricsOf(a) === 2)).toBe(true);
  });

  it('prices the secrets the stack creates and adds the items up to the totals it states', () => {
    const secrets = Object.keys(s.template.findResources('AWS::SecretsManager::Secret')).length;
    const costs = readme.slice(readme.indexOf('### What it costs at rest'));
    const secretLine = /Secrets Manager (\d+) secrets \$(\d+\.\d\d)/.exec(costs);
    expect(Number(secretLine![1])).toBe(secrets);
    expect(Number(secretLine![2])).toBeCloseTo(0.4 * secrets, 2);
    // Each priced item as README states it: a figure or a range "$a–b".
    const body = costs.slice(0, costs.indexOf('**About'));
    const items = [...body.matchAll(/\$(\d+\.\d\d)(?:–(\d+\.\d\d))?(?! each)(?! per)/g)].filter(
      (m) => !/a month per metric|\$0\.30 a month/.test(body.slice(m.index - 20, m.index + 20)),
    );
    const low = items.reduce((sum, m) => sum + Number(m[1]), 0);
    const high = items.reduce((sum, m) => sum + Number(m[2] ?? m[1]), 0);
    const total = /\*\*About \$(\d+\.\d\d) a month, \$(\d+\.\d\d) without the dashboard\.\*\*/.exec(costs);
    expect(total, 'the totals line').not.toBeNull();
    const dashboard = /the dashboard \$(\d+\.\d\d)/.exec(body);
    expect(Math.abs(Number(total![1]) - (low + high) / 2)).toBeLessThanOrEqual(0.25);
    expect(Math.abs(Number(total![2]) - ((low + high) / 2 - Number(dashboard![1])))).toBeLessThanOrEqual(
      0.25,
    );
  });
});

describe('README "Operations": the saved queries', () => {
  it('shows each saved query by its name, exactly as the stack saves it', () => {
    const rows = tableRows(section('Operations'), '| name | query |');
    expect(rows.map(([name]) => ticked(name!)[0]).sort()).toEqual(
      Object.keys(SAVED_QUERIES)
        .map((name) => `console-autopilot/${name}`)
        .sort(),
    );
    for (const [name, query] of Object.entries(SAVED_QUERIES)) {
      const row = rows.find(([cell]) => cell === `\`console-autopilot/${name}\``)!;
      const shown = `\`${query.toString().replace(/\n/g, ' ').replace(/\|/g, '\\|')}\``;
      expect(row[1], name).toContain(shown);
    }
  });
});

describe('README "Operations": the metric table', () => {
  it('has one row per catalogued metric, with its unit and dimensions', () => {
    const rows = tableRows(section('Operations'), '| metric | unit | dimensions | what |');
    const documented = new Map<string, { unit: string; dimensions: string[] }>();
    for (const [names, unit, dims] of rows) {
      const dimensions = dims === '–' ? [] : dims!.split(',').map((d) => d.trim());
      for (const name of ticked(names!)) {
        expect(documented.has(name), `${name} documented twice`).toBe(false);
        documented.set(name, { unit: unit!, dimensions });
      }
    }
    expect([...documented.keys()].sort()).toEqual(Object.keys(METRIC_CATALOGUE).sort());
    for (const [name, spec] of Object.entries(METRIC_CATALOGUE))
      expect(documented.get(name), name).toEqual({ unit: spec.unit, dimensions: [...spec.dimensions] });
  });
});

describe('README "Deploy the stack": the context table', () => {
  const rows = () => tableRows(section('Deploy'), '| context | default | meaning |');

  it('documents every context key the app reads, and no other', () => {
    const keys = rows().map(([key]) => ticked(key!)[0]);
    expect([...keys].sort()).toEqual([...CONTEXT_KEYS].sort());
  });

  it("gives the alarm thresholds' real defaults", () => {
    const defaults = Object.fromEntries(rows().map(([key, value]) => [ticked(key!)[0], value]));
    const contextKey = (name: string) => `alarm${name.charAt(0).toUpperCase()}${name.slice(1)}`;
    for (const [name, value] of Object.entries(DEFAULT_ALARM_THRESHOLDS))
      expect(defaults[contextKey(name)], contextKey(name)).toBe(`\`${value}\``);
  });
});

describe('the chat grammar (docs/chat.md, README "Slack") against COMMANDS', () => {
  it('docs/chat.md lists every command with its arguments and grant', () => {
    const rows = tableRows(chatDoc, '| command | arguments | kind | needs |');
    expect(rows.map(([name]) => ticked(name!)[0]).sort()).toEqual(COMMANDS.map((c) => c.name).sort());
    for (const spec of COMMANDS) {
      const row = rows.find(([name]) => ticked(name!)[0] === spec.name)!;
      const args = spec.usage.slice(spec.name.length).trim();
      expect(row[1], spec.name).toBe(args ? `\`${args}\`` : '–');
      if (spec.grant) expect(row[3], spec.name).toContain(`\`${spec.grant}\``);
    }
  });

  it('README "Slack" lists every command', () => {
    const rows = tableRows(section('Slack'), '| command | what it does | who may |');
    const documented = rows.flatMap(([cell]) =>
      ticked(cell!).map((t) => t.replace(/^\/autopilot /, '').split(' ')[0]),
    );
    for (const spec of COMMANDS) expect(documented, spec.name).toContain(spec.name);
  });
});

describe('docs/environment.md against what the code reads', () => {
  it('documents every variable the functions, the local stack and the CLI read by name', () => {
    const envDoc = readFileSync(new URL('../../docs/environment.md', import.meta.url), 'utf8');
    const dirs = [
      'src/wiring',
      'src/config',
      'src/secrets',
      'src/slack',
      'src/queue',
      'src/local',
      'src/cli',
    ];
    const read = new Set<string>([
      MAX_RECEIVE_COUNT_VARIABLE,
      RESPECT_REVIEW_SETTINGS_VARIABLE,
      ...SIGNERS.flatMap((signer) => [requesterKeyVariable(signer), requesterKeyVariable(signer, true)]),
    ]);
    for (const dir of dirs)
      for (const file of readdirSync(new URL(`../../${dir}`, import.meta.url)).filter((f) =>
        f.endsWith('.ts'),
      )) {
        const text = readFileSync(new URL(`../../${dir}/${file}`, import.meta.url), 'utf8');
        for (const m of text.matchAll(
          /(?:requireEnv|optionalEnv|integerEnv|booleanEnv)\(\s*'([A-Z0-9_]+)'|(?:io\.env|process\.env|env)\.([A-Z][A-Z0-9_]+)/g,
        ))
          read.add((m[1] ?? m[2])!);
      }
    // The AWS SDK's and the shell's own variables are not ours to document.
    const foreign = /^(AWS_(REGION|ACCESS_KEY_ID|SECRET_ACCESS_KEY|SDK_JS_\w+)|GITHUB_\w+|USER)$/;
    const ours = [...read].filter((name) => !foreign.test(name));
    expect(ours.length).toBeGreaterThan(20);
    for (const name of ours) expect(envDoc, name).toContain(`\`${name}\``);
  });
});

describe('README "CLI" against the usage texts', () => {
  it('shows every command `autopilot --help` lists', () => {
    const cli = section('CLI');
    const commands = USAGE.slice(USAGE.indexOf('Commands:'), USAGE.indexOf('Exit codes'))
      .split('\n')
      .map(
        (line) =>
          /^ {2}([a-z]+(?: (?:check|explain|test|diff|replay|approve|manifest|curl))?)/.exec(line)?.[1],
      )
      .filter((c): c is string => c !== undefined);
    expect(commands.length).toBeGreaterThan(10);
    for (const command of commands) expect(cli, command).toContain(`npx autopilot ${command}`);
  });
});

describe('every `npx autopilot` line of README and docs/*.md against the usage texts', () => {
  /** `npx autopilot <command> [<sub>] …` (and the one-file CLI, `autopilot.mjs …`) up to a code span's or comment's end. */
  function commandLines(): Array<{ file: string; command: string[]; options: string[] }> {
    const files = [
      'README.md',
      ...readdirSync(new URL('../../docs', import.meta.url)).map((f) => `docs/${f}`),
    ];
    const found: Array<{ file: string; command: string[]; options: string[] }> = [];
    for (const file of files) {
      const text = readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');
      for (const m of text.matchAll(/(?:npx autopilot|autopilot\.mjs) ([a-z][^`#\n]*)/g)) {
        const words = m[1]!.trim().split(/\s+/);
        const withSub = /^(policy|enqueue|dlq|slack)$/.test(words[0]!);
        found.push({
          file,
          command: words.slice(0, withSub ? 2 : 1),
          options: [...m[1]!.matchAll(/--[a-z][a-z-]*/g)].map((o) => o[0]),
        });
      }
    }
    return found;
  }

  it('names only commands the CLI has, with options their --help lists', async () => {
    const lines = commandLines();
    expect(lines.length).toBeGreaterThan(20);
    const helpOf = new Map<string, { code: number; text: string }>();
    for (const { file, command, options } of lines) {
      const key = command.join(' ');
      if (!helpOf.has(key)) {
        let text = '';
        const write = (t: string) => {
          text += t;
        };
        const io = { stdout: write, stderr: write, env: {}, cwd: process.cwd(), now: () => new Date() };
        helpOf.set(key, { code: await runCli([...command, '--help'], io), text });
      }
      const help = helpOf.get(key)!;
      expect(help.code, `${file}: npx autopilot ${key}`).toBe(0);
      for (const option of options)
        expect(help.text, `${file}: npx autopilot ${key} ${option}`).toContain(
          option === '--help' ? '' : option,
        );
    }
  });
});

describe('README "Secrets: who reads what": the table grants', () => {
  it("lists exactly the worker's actions on held requests", () => {
    const rows = tableRows(readme.slice(readme.indexOf('### Secrets: who reads what')), '| function |');
    const worker = rows.find(([fn]) => fn === 'worker')![1]!;
    const phrase = /([a-z/-]+) held requests \(`held#all`/.exec(worker);
    expect(phrase, 'the held requests phrase').not.toBeNull();
    const documented = phrase![1]!.split('/').sort();
    const held = `${ITEM_FAMILIES.held}#all`;
    // The batch read of a request's whole state (held#all among its keys) is a row of its own.
    const granted = WORKER_TABLE_GRANTS.filter(
      (g) => g.partitionKeys.length === 1 && g.partitionKeys[0] === held,
    )
      .flatMap((g) => g.actions)
      .map((a) => a.replace('dynamodb:', '').replace(/Item$/, '').toLowerCase())
      .sort();
    expect(documented).toEqual(granted);
  });
});

describe('README: a requester key rotated out', () => {
  it('says wherever it tells of requests signed with the old key that the worker accepts it for a while after the rotation', () => {
    // src/secrets/previous-keys.ts: only requests reaching the worker later end in the DLQ.
    const words: Record<number, string> = { 5: 'five', 10: 'ten', 15: 'fifteen', 20: 'twenty' };
    const grace = `${words[ROTATION_GRACE_MS / 60_000]} minutes after the rotation`;
    const passages = readme
      .split(/\n(?=- )|\n\n/)
      .filter((p) => /signed with (the old key|it)/.test(p) && /DLQ/.test(p));
    expect(passages.length).toBeGreaterThanOrEqual(2);
    for (const passage of passages) expect(passage.replace(/\s+/g, ' ')).toContain(grace);
  });
});
