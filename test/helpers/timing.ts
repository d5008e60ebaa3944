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
