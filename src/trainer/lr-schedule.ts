/** A learning-rate schedule over the run's optimizer steps. */
export interface LrSchedule {
  /** `'constant'`, `'linear'` (decays to 0 at `maxSteps`) or `'cosine'` (half a cosine to 0 at `maxSteps`). */
  readonly kind: 'constant' | 'linear' | 'cosine';
  /** Steps of linear warm-up from 0 to the base rate (step s of the warm-up uses `base·s/warmupSteps`). @default 0 */
  readonly warmupSteps?: number;
}

/**
 * The learning rate of step `step` (1-based) of `maxSteps`: warm-up `base·step/warmupSteps` while
 * `step ≤ warmupSteps`, then with progress `p = (step − warmupSteps − 1)/(maxSteps − warmupSteps)` in [0, 1):
 * `constant` → base; `linear` → `base·(1 − p)`; `cosine` → `base·½(1 + cos(π·p))` (Loshchilov & Hutter 2017, SGDR,
 * without restarts). The first step after warm-up therefore uses the full base rate.
 */
export function scheduledLearningRate(schedule: LrSchedule | undefined, base: number, step: number, maxSteps: number): number {
  if (schedule === undefined) return base;
  const warm = schedule.warmupSteps ?? 0;
  if (step <= warm) return (base * step) / warm;
  const span = Math.max(1, maxSteps - warm);
  const p = Math.min(1, Math.max(0, (step - warm - 1) / span));
  switch (schedule.kind) {
    case 'constant':
      return base;
    case 'linear':
      return base * (1 - p);
    case 'cosine':
      return base * 0.5 * (1 + Math.cos(Math.PI * p));
  }
}
