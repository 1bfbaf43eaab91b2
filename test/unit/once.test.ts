import { describe, expect, it } from 'vitest';
import { once } from '../../src/util/once.js';

describe('once', () => {
  it('builds on the first call, not before, and returns the same value afterwards', () => {
    let builds = 0;
    const value = once(() => ({ build: ++builds }));
    expect(builds).toBe(0);
    const first = value();
    expect(value()).toBe(first);
    expect(builds).toBe(1);
  });

  it('keeps a falsy value', () => {
    let builds = 0;
    const value = once(() => {
      builds++;
      return undefined;
    });
    value();
    value();
    expect(builds).toBe(1);
  });

  it('builds again after a build that threw', () => {
    let builds = 0;
    const value = once(() => {
      if (++builds === 1) throw new Error('first build fails');
      return builds;
    });
    expect(value).toThrow('first build fails');
    expect(value()).toBe(2);
    expect(value()).toBe(2);
  });
});
