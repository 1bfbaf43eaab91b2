/**
 * Where a cold init goes: V8 compiling the bundle, or the bundle's own top-level code running.
 * Each variant is imported in fresh `node` processes under the CPU profiler (`--cpu-prof`), and
 * the self time of two kinds of frames is summed: Node's `compileSourceTextModule` (V8 parsing and
 * compiling the module's source: the native work is charged to that frame) and every frame of the
 * bundle itself (its top-level code: module wrappers, SDK setup, schemas, constants). The
 * profiler slows everything down alike, so the figures explain the cold-init rows; they are not
 * those rows.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createRng } from '../src/sandbox/prng.js';
import { median, shuffled } from './stats.js';

export interface InitSplit {
  /** V8 parsing and compiling the bundle (Node's compileSourceTextModule), ms. */
  compileMs: number;
  /** The bundle's own top-level code running, ms. */
  bundleCodeMs: number;
}

interface CpuProfile {
  nodes: Array<{ id: number; callFrame: { functionName: string; url: string } }>;
  samples: number[];
  timeDeltas: number[];
}

/** Self time (ms) of the compile frame and of the bundle's frames in one profile. */
export function splitProfile(profile: CpuProfile, bundleUrl: string): InitSplit {
  const selfUs = new Map<number, number>();
  // timeDeltas[i] is the time before sample i; the time a sample stands for is the next delta.
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i] as number;
    selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i + 1] ?? 0));
  }
  let compile = 0;
  let bundleCode = 0;
  for (const node of profile.nodes) {
    const us = selfUs.get(node.id) ?? 0;
    if (node.callFrame.functionName === 'compileSourceTextModule') compile += us;
    else if (node.callFrame.url === bundleUrl) bundleCode += us;
  }
  return { compileMs: compile / 1000, bundleCodeMs: bundleCode / 1000 };
}

/** Median split per variant over `runs` fresh processes each, interleaved in a seeded order. */
export function profileInits(
  variants: ReadonlyArray<{ name: string; file: string; env: NodeJS.ProcessEnv }>,
  runs: number,
): Map<string, InitSplit> {
  const dir = mkdtempSync(join(tmpdir(), 'autopilot-init-profile-'));
  const splits = new Map<string, InitSplit[]>(variants.map((v) => [v.name, []]));
  const random = createRng(43).next;
  try {
    for (let round = 0; round < runs; round++) {
      for (const variant of shuffled([...variants], random)) {
        const out = join(dir, `${variant.name}-${round}`);
        const url = pathToFileURL(variant.file).href;
        const run = spawnSync(
          process.execPath,
          [
            '--cpu-prof',
            '--cpu-prof-interval',
            '50',
            '--cpu-prof-dir',
            out,
            '--input-type=module',
            '-e',
            'await import(process.argv[1]);',
            url,
          ],
          { env: variant.env, encoding: 'utf8', timeout: 20_000 },
        );
        if (run.status !== 0)
          throw new Error(
            `init profile of ${variant.name} failed (${run.status}): ${run.stderr.slice(0, 2000)}`,
          );
        const [file] = readdirSync(out);
        if (!file) throw new Error(`init profile of ${variant.name}: no profile written`);
        const profile = JSON.parse(readFileSync(join(out, file), 'utf8')) as CpuProfile;
        splits.get(variant.name)!.push(splitProfile(profile, url));
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return new Map(
    [...splits].map(([name, list]) => [
      name,
      {
        compileMs: median(list.map((s) => s.compileMs)),
        bundleCodeMs: median(list.map((s) => s.bundleCodeMs)),
      },
    ]),
  );
}
