import { describe, expect, it } from 'vitest';
import {
  FUNCTION_MEMORY_MB,
  LAMBDA_MEMORY_SIZES_MB,
  smallestMemoryFor,
} from '../../infra/function-memory.js';

describe('function memory sizes', () => {
  it('picks the smallest size with 2× headroom over a peak', () => {
    expect(smallestMemoryFor(40)).toBe(128);
    expect(smallestMemoryFor(64)).toBe(128);
    expect(smallestMemoryFor(64.5)).toBe(256);
    expect(smallestMemoryFor(150)).toBe(384);
    expect(smallestMemoryFor(512)).toBe(1024);
    expect(smallestMemoryFor(513)).toBeUndefined();
  });

  it('gives every function one of the sizes chosen from', () => {
    for (const size of Object.values(FUNCTION_MEMORY_MB)) {
      expect(LAMBDA_MEMORY_SIZES_MB).toContain(size);
    }
  });
});
