import type { z } from 'zod';
import type { LossConfig, LossSequence, NativeLossKind } from '../types/loss-config.js';
import type { PerTokenLossInputs } from './types.js';

/** How a built-in kind maps onto a backend's native loss (the engine's kernel, Tinker's `loss_fn`). */
export interface NativeLoss<C extends LossConfig> {
  /** The native loss it is, exactly. */
  readonly lossFn: NativeLossKind;
  /** Ratio bounds `[lo, hi]` the kernel clips with (absent: no clipping). */
  bounds?(c: C): readonly [number, number];
  /**
   * The wire input the per-token aggregation coefficient is folded into: the loss is linear in `advantages`
   * (`importance_sampling`, `cispo`, `ppo` for a non-negative scale) or in `weights` (`cross_entropy`).
   */
  readonly scales: 'advantages' | 'weights';
  /** True when only a non-negative scale keeps the loss exact (`ppo`: `min(r·sA, clip(r)·sA) = s·min(…)` needs s ≥ 0). */
  readonly nonNegativeScale: boolean;
}

/**
 * One loss kind, defined once: its options schema, its per-token formula, the gradient of that formula, the tokens
 * it clips, and — for kinds a backend has built in — the native loss it maps onto. The engine, `tinkerBackend`,
 * `agentrl serve`'s loss outputs, the reference loss and the metrics all derive from these definitions
 * (`src/loss/registry.ts`). A kind without `native` runs as a custom loss on every backend.
 */
export interface LossDefinition<C extends LossConfig> {
  /** The loss kind this definition implements (the `kind` of its config). */
  readonly kind: C['kind'];
  /** Inputs the formula needs besides `targetLogprobs` (missing or mis-sized ones are a `DatumShapeError`). */
  readonly needs: readonly Exclude<keyof PerTokenLossInputs, 'targetLogprobs'>[];
  /** True for policy-gradient kinds (reports `kl_sample_train`); false for supervised ones. */
  readonly rl: boolean;
  /** The config's options keys besides `kind` (`checkLossSupported` refuses any other). */
  readonly optionKeys: readonly string[];
  /** One line describing the config, defaults filled in, e.g. `ppo clip [0.8, 1.28], token-mean` (`lossDefinition(c).describe(c)`). */
  describe(c: C): string;
  /** Per-token losses ℓ_t of one sequence, length T (mask and aggregation applied afterwards). */
  perToken(c: C, s: LossSequence): number[];
  /** `∂(Σ_u coef_u·ℓ_u)/∂lp_t`, length T: the per-token weights of the custom-loss backward. */
  grad(c: C, s: LossSequence, coef: readonly number[]): number[];
  /** Per token: did clipping change its update (`optim/clip_frac`). */
  clipped(c: C, s: LossSequence): boolean[];
  /** The backend's built-in equivalent, when there is one. */
  readonly native?: NativeLoss<C>;
  /** The zod schema of this kind's config (strict object). */
  readonly schema: z.ZodType<C>;
}

/** `clip(x, lo, hi)`. */
export const clip = (x: number, lo: number, hi: number): number => Math.min(Math.max(x, lo), hi);

/** `exp(lp − sampling)` at position t. */
export const ratioAt = (s: LossSequence, t: number): number => Math.exp((s.targetLogprobs[t] as number) - (s.samplingLogprobs[t] as number));

/** Maps `f` over the positions of a sequence. */
export const perPosition = <T>(s: LossSequence, f: (t: number) => T): T[] => Array.from({ length: s.targetLogprobs.length }, (_, t) => f(t));
