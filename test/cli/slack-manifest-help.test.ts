/**
 * README "CLI": "Every command takes `--help`", and "The Slack app" step 1 names
 * `npm run slack:manifest` with its options. `npm run slack:manifest -- --help`, the first thing a
 * platform engineer types there, answered `unknown argument "--help"` and exit 2.
 */
import { describe, expect, it } from 'vitest';
import { runManifestCli } from '../../src/slack/manifest-cli.js';

describe('npm run slack:manifest -- --help', () => {
  it.each([['--help'], ['-h']])('%s prints the usage on stdout and exits 0', (flag) => {
    let out = '';
    let err = '';
    const code = runManifestCli([flag], { out: (t) => (out += t), err: (t) => (err += t) });
    expect({ code, err }).toEqual({ code: 0, err: '' });
    expect(out).toContain('npm run slack:manifest -- --url <https webhook base URL>');
  });
});
