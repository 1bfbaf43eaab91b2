/**
 * `npm run build:cli`: the CLI as one file, `dist/autopilot.mjs`, that runs with Node alone (no
 * tsx, no node_modules, no clone): what a CI job downloads to queue a request and gate on its
 * outcome (`enqueue … --wait`). The AWS SDK is bundled; the file targets the oldest Node the
 * project supports (20).
 */
import { chmodSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { ESM_REQUIRE_BANNER, MAIN_FIELDS, REPO_ROOT } from './bundling.js';

/** Bundles the CLI to `outfile` (default dist/autopilot.mjs); resolves to the file's path. */
export async function buildCliBundle(outfile = join(REPO_ROOT, 'dist', 'autopilot.mjs')): Promise<string> {
  mkdirSync(dirname(outfile), { recursive: true });
  await build({
    entryPoints: [join(REPO_ROOT, 'src', 'cli', 'main.ts')],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    minify: true,
    mainFields: MAIN_FIELDS,
    banner: { js: `#!/usr/bin/env node\n${ESM_REQUIRE_BANNER}` },
    logLevel: 'warning',
  });
  chmodSync(outfile, 0o755);
  return outfile;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const file = await buildCliBundle(process.argv[2] ? resolve(process.argv[2]) : undefined);
  process.stdout.write(`wrote ${file}\n`);
}
