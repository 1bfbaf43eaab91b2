/**
 * 6b2233a stops the synth on a misspelled context key, and promises to leave unrelated keys
 * alone. But a key counted as misspelled when it is merely part of one of ours: a pipeline's own
 * `-c ci=true`, a shared cdk.json's `stage`-style keys such as `test` or `secret`, now fail the
 * synth of a stack that deployed before ("did you mean ciPrincipals?"). A short word inside a
 * long key is no typo of it; misspellings stay caught (test/infra/context-typos.test.ts).
 */
import { describe, it } from 'vitest';
import { synthesize } from './synth.js';

describe('context keys that are not ours', () => {
  it.each([[{ ci: 'true' }], [{ test: '1' }], [{ secret: 'shared' }], [{ url: 'https://example.com' }]])(
    'an unrelated key (%o) is left alone',
    (context) => {
      synthesize(context, { bundle: false }).cleanup();
    },
  );
});
