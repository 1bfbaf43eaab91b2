/**
 * Every handler imports the Console API client, the action request and (the webhook) the
 * Slack interactions; building zod objects when those modules load would cost every cold
 * start (bench/cold-start.bench.ts). Their schemas are built on first use instead.
 *
 * zod has no public counter of the objects it builds. Each one, schema or check, gets its
 * internals as a `_zod` property defined with `Object.defineProperty` when it is constructed
 * (`$constructor` in zod/v4/core), so counting those definitions counts constructions. The
 * second test shows that the count sees them. The modules are imported dynamically, after
 * the count starts (vitest gives each test file its own module graph). The handlers as
 * bundled are counted the same way in test/infra/bundled-policy.test.ts.
 */
import { describe, expect, it } from 'vitest';

/** Runs `work` and returns where each zod object it built was built (a few stack frames each). */
async function zodObjectsBuiltBy(work: () => unknown): Promise<string[]> {
  const built: string[] = [];
  const define = Object.defineProperty;
  Object.defineProperty = <T>(target: T, key: PropertyKey, descriptor: PropertyDescriptor): T => {
    if (key === '_zod') built.push(new Error().stack?.split('\n').slice(2, 8).join('\n') ?? '');
    return define(target, key, descriptor);
  };
  try {
    await work();
  } finally {
    Object.defineProperty = define;
  }
  return built;
}

describe('schemas of the modules every handler imports', () => {
  it('are not built when the modules load', async () => {
    const built = await zodObjectsBuiltBy(async () => {
      await import('../../src/console/index.js');
      await import('../../src/actions/request.js');
      await import('../../src/webhook/interactions.js');
    });
    expect(built).toEqual([]);
  });

  it('are built on first use and shared afterwards', async () => {
    const { segmentSchema } = await import('../../src/console/index.js');
    const { actionRequestSchemas } = await import('../../src/actions/request.js');
    expect((await zodObjectsBuiltBy(segmentSchema)).length).toBeGreaterThan(10);
    expect((await zodObjectsBuiltBy(actionRequestSchemas)).length).toBeGreaterThan(10);
    expect(await zodObjectsBuiltBy(segmentSchema)).toEqual([]);
    expect(await zodObjectsBuiltBy(actionRequestSchemas)).toEqual([]);
    expect(segmentSchema()).toBe(segmentSchema());
    expect(actionRequestSchemas()).toBe(actionRequestSchemas());
  });
});
