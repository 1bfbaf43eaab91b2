/**
 * The whole template with default settings, as a snapshot: a reviewer sees every change to
 * the deployed resources in the diff. Asset hashes change with every code change, so they
 * are masked; the assertions that matter live in stack.test.ts.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type Synthesized, synthesize } from './synth.js';

let s: Synthesized;
beforeAll(() => {
  // Bundling is skipped: it only changes asset hashes, which are masked; stack.test.ts bundles.
  s = synthesize({ consoleApiBaseUrl: 'https://console.example.com' }, { bundle: false });
});
afterAll(() => s?.cleanup());

/** Replaces 64-hex asset hashes (S3 keys, asset parameters, metadata) with a fixed marker. */
function maskAssetHashes(template: unknown): unknown {
  return JSON.parse(JSON.stringify(template).replace(/[0-9a-f]{64}/g, '<asset-hash>'));
}

it('matches the reviewed template, asset hashes aside', () => {
  const masked = maskAssetHashes(s.json);
  expect(JSON.stringify(masked)).not.toMatch(/[0-9a-f]{64}/);
  expect(masked).toMatchSnapshot();
});
