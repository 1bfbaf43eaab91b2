import { describe, expect, it } from 'vitest';
import { splitProfile } from '../../bench/init-profile.js';

const BUNDLE = 'file:///tmp/out-worker/index.mjs';

describe('splitProfile: where a cold init goes', () => {
  it("charges each sample's time (the next delta) to its frame: compile, the bundle's code, or neither", () => {
    const profile = {
      nodes: [
        { id: 1, callFrame: { functionName: '(root)', url: '' } },
        {
          id: 2,
          callFrame: { functionName: 'compileSourceTextModule', url: 'node:internal/modules/esm/utils' },
        },
        { id: 3, callFrame: { functionName: '', url: BUNDLE } },
        { id: 4, callFrame: { functionName: 'init_schemas', url: BUNDLE } },
        { id: 5, callFrame: { functionName: 'readFileSync', url: 'node:fs' } },
        { id: 6, callFrame: { functionName: '', url: 'file:///tmp/out-bare/index.mjs' } },
      ],
      samples: [2, 2, 3, 4, 5, 6, 3],
      // timeDeltas[i] comes before sample i: sample i lasts timeDeltas[i + 1] µs; the last has none.
      timeDeltas: [0, 1000, 500, 200, 300, 4000, 700],
    };
    expect(splitProfile(profile, BUNDLE)).toEqual({ compileMs: 1.5, bundleCodeMs: 0.5 });
  });
});
