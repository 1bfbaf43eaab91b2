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

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
// As the functions are bundled (infra/bundling.ts, which src/ may not import): an ESM bundle has no
// `require`, which a few CommonJS parts of the AWS SDK still call; ES module entry points shake best.
const ESM_REQUIRE_BANNER =
  "import { createRequire } from 'module'; const require = createRequire(import.meta.url);";
const MAIN_FIELDS = ['module', 'main'];

/** Bundles the CLI to `outfile` (default dist/autopilot.mjs); resolves to the file's path. */
export async function buildCliBundle(outfile = join(ROOT, 'dist', 'autopilot.mjs')): Promise<string> {
  mkdirSync(dirname(outfile), { recursive: true });
  await build({
    entryPoints: [join(ROOT, 'src', 'cli', 'main.ts')],
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
