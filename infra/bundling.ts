/**
 * How every Lambda handler is built: one home for the esbuild options and for the policy file
 * that ships beside each bundle, shared by the house function construct (which hands them to
 * NodejsFunction) and by the cold-start benchmark (which calls esbuild with them directly), so
 * that what we measure is what we deploy.
 */
import { writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type NormalizedPolicyFile,
  normalizePolicyFile,
  VALIDATED_POLICY_SHA256_DEFINE,
} from '../src/wiring/policy-file.js';

/** The repository root: entries, the lock file and the default policy file are resolved from here. */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The oldest runtime the bundles run on (the function uses the newest, nodejs24.x, unless `nodeRuntime` says 22). */
export const NODE_TARGET = 'node22';

/**
 * ESM bundles have no `require`; a few CommonJS dependencies inside the AWS SDK still call it.
 * The banner gives them one, bound to the bundle's own URL.
 */
export const ESM_REQUIRE_BANNER =
  "import { createRequire } from 'module'; const require = createRequire(import.meta.url);";

/** Prefer ES module entry points so esbuild can tree-shake the SDK and Hono. */
export const MAIN_FIELDS = ['module', 'main'];

/** Where the bundled policy file lands on Lambda (the bundle's directory is LAMBDA_TASK_ROOT = /var/task). */
export const POLICY_FILE_NAME = 'policy.json';
export const LAMBDA_TASK_ROOT = '/var/task';
export const DEPLOYED_POLICY_PATH = `${LAMBDA_TASK_ROOT}/${POLICY_FILE_NAME}`;

/**
 * Source maps are emitted without embedded sources and ship beside the bundle, for decoding a
 * stack trace offline; Node is not told to load them (`--enable-source-maps`): that costs
 * ~15% of every cold start (measured by `npm run bench` with BENCH_COLD_DIAGNOSTICS=1), and
 * our logs never print stacks (errors are logged as name and message).
 */
export const SOURCE_MAPS_AT_RUNTIME_FLAG = '--enable-source-maps';

/** Output switches shared by NodejsFunction (`sourceMap`) and esbuild (`sourcemap`). */
export const OUTPUT = { minify: true, sourceMap: true, sourcesContent: false } as const;

/** The handler files, relative to the repository root. */
export const HANDLER_ENTRIES = {
  webhook: 'functions/webhook.ts',
  worker: 'functions/worker.ts',
  sweeper: 'functions/sweeper.ts',
} as const;

export type HandlerName = keyof typeof HANDLER_ENTRIES;

/**
 * The policy a bundle ships: validated with the zod schema (an invalid file throws, naming every
 * path, so `cdk synth` fails), normalized (defaults filled in), and the SHA-256 of those bytes.
 */
export function bundledPolicy(policyFile: string): NormalizedPolicyFile {
  return normalizePolicyFile(resolve(REPO_ROOT, policyFile));
}

/**
 * esbuild `define` that makes a bundle trust exactly this policy's bytes: `loadPolicyFile`
 * (src/wiring/policy-file.ts) returns a file with this digest without building the zod schema again.
 */
export function policyDefine(policy: Pick<NormalizedPolicyFile, 'sha256'>): Record<string, string> {
  return { [VALIDATED_POLICY_SHA256_DEFINE]: JSON.stringify(policy.sha256) };
}

/** Writes the normalized policy beside a bundle, where the handlers read it (`policy.json`). */
export function writeBundledPolicy(outDir: string, policy: Pick<NormalizedPolicyFile, 'text'>): string {
  const file = join(outDir, POLICY_FILE_NAME);
  writeFileSync(file, policy.text);
  return file;
}

/** The esbuild build options for one entry, as NodejsFunction runs them (for the benchmark and tests). */
export function esbuildOptions(entry: string, outfile: string, policy: Pick<NormalizedPolicyFile, 'sha256'>) {
  return {
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node' as const,
    format: 'esm' as const,
    target: NODE_TARGET,
    minify: OUTPUT.minify,
    sourcemap: OUTPUT.sourceMap,
    sourcesContent: OUTPUT.sourcesContent,
    mainFields: MAIN_FIELDS,
    banner: { js: ESM_REQUIRE_BANNER },
    // The AWS SDK is bundled, never external: the runtime's copy is slower to load (aws/aws-cdk#25492).
    external: [] as string[],
    define: policyDefine(policy),
    logLevel: 'warning' as const,
  };
}
