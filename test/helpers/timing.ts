/**
 * Fastest of `runs` calls of `fn`, in ms. For tests that guard against super-linear blowup (a quadratic parser takes
 * seconds at the sizes used, a linear one a few ms), not for performance figures: the minimum shrugs off a noisy
 * machine's pauses, so a generous bound holds on loaded CI.
 */
export function fastestMs(fn: () => unknown, runs = 5): number {
  let best = Infinity;
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    fn();
    best = Math.min(best, performance.now() - t0);
  }
  return best;
}

/**
 * The bound for a linear pass over 100 k characters in tests that guard against super-linear blowup. Measured: the
 * slowest linear parser here takes up to ~350 ms (fastest of 5) on a 2-core machine at load 35, a few ms when quiet;
 * the quadratic code these replaced takes 5–20 s at that size. Growth ratios between two sizes do not work instead:
 * a small input that fits in cache runs 30–500× faster than a large one even in linear code.
 */
export const LINEAR_BOUND_MS = 2_000;
