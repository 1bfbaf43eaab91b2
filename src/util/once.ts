/**
 * `build`, run on the first call and its result shared by every call after it. For values
 * that cost something to make and that not every caller needs, such as zod schemas: building
 * them when their module loads would cost every cold start (bench/cold-start.bench.ts).
 */
export function once<T>(build: () => T): () => T {
  let built = false;
  let value: T;
  return () => {
    if (!built) {
      value = build();
      built = true;
    }
    return value;
  };
}
