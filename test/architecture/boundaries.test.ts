/**
 * The dependency directions of the architecture (docs/architecture.md), checked over the import
 * graph of `src/`, `functions/` and `infra/`: every static import, re-export and dynamic import
 * of every module, followed transitively. A new import that crosses a boundary fails here, with
 * the chain of modules that crosses it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

function tsFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return tsFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

const IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)['"]([^'"]+)['"]/gm;

/** The specifiers a module imports: repository modules as paths (`src/x/y.ts`), packages by name. */
function importsOf(file: string, text: string): string[] {
  const out: string[] = [];
  for (const match of text.matchAll(IMPORT)) {
    const spec = match[1] ?? '';
    if (!spec.startsWith('.')) {
      out.push(spec);
      continue;
    }
    const target = relative(ROOT, resolve(ROOT, dirname(file), spec)).replace(/\.js$/, '.ts');
    out.push(target.endsWith('.ts') ? target : `${target}.ts`);
  }
  return out;
}

const FILES = ['src', 'functions', 'infra'].flatMap(tsFiles);

const GRAPH = new Map(FILES.map((file) => [file, importsOf(file, readFileSync(join(ROOT, file), 'utf8'))]));

/** Every module and package reachable from `file`, each with the chain of imports that reaches it. */
function reachable(file: string): Map<string, string[]> {
  const chains = new Map<string, string[]>([[file, [file]]]);
  const queue = [file];
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    for (const target of GRAPH.get(next) ?? []) {
      if (chains.has(target)) continue;
      chains.set(target, [...(chains.get(next) ?? []), target]);
      if (GRAPH.has(target)) queue.push(target);
    }
  }
  return chains;
}

const under = (folder: string) => (path: string) => path.startsWith(`${folder}/`);
const isAwsOrLambda = (path: string) =>
  /^(@aws-sdk\/|@aws-lambda-powertools\/|aws-lambda$|aws-cdk-lib)/.test(path);
const IO_MODULES =
  /^(node:)?(fs|fs\/promises|net|http|https|http2|dgram|child_process|dns|tls|worker_threads)$/;

/** The chains from any module of `folder` to a module or package `forbidden` accepts. */
function violations(folder: string, forbidden: (path: string) => boolean): string[] {
  const out = new Set<string>();
  for (const file of FILES.filter(under(folder))) {
    for (const [target, chain] of reachable(file)) {
      if (forbidden(target)) out.add(chain.join(' → '));
    }
  }
  return [...out].sort();
}

describe('the import graph', () => {
  it('is read from every module (the checks below are not vacuous)', () => {
    expect(FILES.filter(under('src/console')).length).toBeGreaterThan(10);
    expect(GRAPH.get('functions/worker.ts')?.some(under('src'))).toBe(true);
    expect(reachable('src/state/audit.ts').has('@aws-sdk/client-dynamodb')).toBe(true);
    expect(importsOf('src/a/b.ts', "import x from '../c/d.js';\nconst m = await import('./e.js');")).toEqual([
      'src/c/d.ts',
      'src/a/e.ts',
    ]);
  });

  it('keeps the Console API client free of AWS and of the functions: no SDK, no state, webhook, worker or sweeper', () => {
    const functionsSide = [
      'src/state',
      'src/webhook',
      'src/worker',
      'src/sweeper',
      'src/wiring',
      'functions',
    ];
    expect(
      violations('src/console', (path) => isAwsOrLambda(path) || functionsSide.some((f) => under(f)(path))),
    ).toEqual([]);
  });

  it('keeps the policy pure: no file, network or process I/O, no AWS, no state', () => {
    expect(
      violations(
        'src/policy',
        (path) =>
          IO_MODULES.test(path) ||
          isAwsOrLambda(path) ||
          under('src/state')(path) ||
          under('src/wiring')(path),
      ),
    ).toEqual([]);
    const reads = FILES.filter(under('src/policy')).filter((file) =>
      /\bprocess\.(env|argv|exit)|\bfetch\(/.test(readFileSync(join(ROOT, file), 'utf8')),
    );
    expect(reads).toEqual([]);
  });

  it('never bundles the sandbox, the local stack or the CLI into a function', () => {
    expect(
      violations('functions', (path) => ['src/sandbox', 'src/local', 'src/cli'].some((f) => under(f)(path))),
    ).toEqual([]);
  });

  it('keeps the sandbox an independent reading of the spec: it shares no module with the client', () => {
    const ofClient = new Set(
      FILES.filter(under('src/console')).flatMap((file) =>
        [...reachable(file).keys()].filter(GRAPH.has, GRAPH),
      ),
    );
    const shared = violations('src/sandbox', (path) => ofClient.has(path));
    expect(shared).toEqual([]);
  });

  it('builds DynamoDB requests only in src/state/ (the wiring constructs the client)', () => {
    const importers = FILES.filter((file) => GRAPH.get(file)?.includes('@aws-sdk/client-dynamodb'));
    expect(
      importers.filter((file) => !under('src/state')(file) && file !== 'src/wiring/from-env.ts'),
    ).toEqual([]);
  });

  it('points every dependency one way: functions/ → src/, and src/ never imports functions/ or infra/', () => {
    const upward = FILES.filter(under('src')).flatMap((file) =>
      (GRAPH.get(file) ?? [])
        .filter((t) => under('functions')(t) || under('infra')(t))
        .map((t) => `${file} → ${t}`),
    );
    expect(upward).toEqual([]);
    const handlersOutsideSrc = FILES.filter(under('functions')).flatMap((file) =>
      (GRAPH.get(file) ?? [])
        .filter((t) => t.endsWith('.ts') && !under('src')(t))
        .map((t) => `${file} → ${t}`),
    );
    expect(handlersOutsideSrc).toEqual([]);
  });

  it('keeps every module of src/ short (300 lines) outside the sandbox and the local stack', () => {
    const exempt = (file: string) => under('src/sandbox')(file) || under('src/local')(file);
    const long = FILES.filter(under('src'))
      .filter((file) => !exempt(file))
      .map((file) => [file, readFileSync(join(ROOT, file), 'utf8').trimEnd().split('\n').length] as const)
      .filter(([, lines]) => lines > 300)
      .map(([file, lines]) => `${file}: ${lines} lines`);
    expect(long).toEqual([]);
  });
});
