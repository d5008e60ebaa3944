/**
 * How per-token losses are reduced to one scalar. The same on every backend.
 * - `token-mean`: sum over all masked tokens of the batch / number of masked tokens (DAPO).
 * - `sequence-mean`: mean over each sequence's masked tokens, then mean over sequences (GRPO paper).
 * - `token-sum`: plain sum over masked tokens (Tinker's built-in reduction).
 */
export type Aggregation = 'token-mean' | 'sequence-mean' | 'token-sum';

/**
 * The policy loss, as a discriminated union on `kind`. Formulas follow Tinker's documented
 * losses (tinker-cookbook `docs/losses.mdx`), with `r = exp(logp_θ − logp_sample)`:
 * - `cross_entropy`: `−logp_θ · w`.
 * - `importance_sampling`: `−r · A`.
 * - `ppo`: `−min(r·A, clip(r, clipLow, clipHigh)·A)`; bounds are absolute ratios (0.8 / 1.28 = DAPO clip-higher).
 * - `cispo`: `−sg(clip(r, clipLow, clipHigh)) · logp_θ · A` (MiniMax-M1).
 * - `gspo`: `−min(s·A, clip(s, clipLow, clipHigh)·A)` on every token of a sequence, with the sequence ratio
 *   `s = exp(mean_t(logp_θ − logp_sample))` over its masked tokens (GSPO, Zheng et al. 2025).
 * - `custom`: a user-defined loss made with `defineLoss` (runs as a weighted cross-entropy backward).
 * Each kind is defined once in the loss registry (`src/loss/registry.ts`).
 */
export type LossConfig =
  | { readonly kind: 'ppo'; readonly clipLow: number; readonly clipHigh: number; readonly aggregation?: Aggregation }
  | { readonly kind: 'importance_sampling'; readonly aggregation?: Aggregation }
  | { readonly kind: 'cispo'; readonly clipLow?: number; readonly clipHigh: number; readonly aggregation?: Aggregation }
  | { readonly kind: 'cross_entropy'; readonly aggregation?: Aggregation }
  | { readonly kind: 'gspo'; readonly clipLow: number; readonly clipHigh: number; readonly aggregation?: Aggregation }
  | { readonly kind: 'custom'; readonly loss: CustomLoss; readonly aggregation?: Aggregation };

/** The loss kinds, for exhaustive switches. */
export type LossKind = LossConfig['kind'];

/** The kinds a backend runs natively (the engine's kernels, Tinker's `loss_fn`); the others run as a custom loss. */
export type NativeLossKind = 'ppo' | 'importance_sampling' | 'cispo' | 'cross_entropy';

/**
 * One sequence (datum) as a loss sees it; every array has length T. Masked-out positions (`mask = 0`) are part of
 * the arrays and must not influence the loss of masked positions.
 */
export interface LossSequence {
  /** Learner logprobs `log p_θ(target_t)` (natural log). */
  readonly targetLogprobs: readonly number[];
  /** Behaviour (sampling) logprobs, `Datum.logprobs`. */
  readonly samplingLogprobs: readonly number[];
  /** Per-token advantages, `Datum.advantages`. */
  readonly advantages: readonly number[];
  /** `Datum.weights ?? Datum.mask`. */
  readonly weights: readonly number[];
  /** `Datum.mask`. */
  readonly mask: readonly number[];
  /** `Datum.referenceLogprobs`, when the datum carries them. */
  readonly referenceLogprobs?: readonly number[];
}

/**
 * A user-defined loss on per-token logprobs, made with `defineLoss`. It runs on every backend as a custom loss
 * (a forward for the learner logprobs, then a weighted cross-entropy backward whose weights are the loss's gradient).
 */
export interface CustomLoss {
  /** Shown in logs, e.g. `'clipped-reinforce'`. */
  readonly name: string;
  /**
   * `'token'`: `perToken(s)[t]` depends on position t's inputs only (the gradient may then be left out and is taken
   * by central differences). `'sequence'`: it may depend on the whole sequence; `grad` is then required.
   */
  readonly level: 'token' | 'sequence';
  /** Per-token losses ℓ_t, length T (the mask and aggregation are applied afterwards). */
  perToken(s: LossSequence): readonly number[];
  /** `∂(Σ_u coef_u·ℓ_u)/∂logp_θ(t)` for each t, length T. */
  grad?(s: LossSequence, coef: readonly number[]): readonly number[];
  /** Tokens whose update the loss clipped (counted in `optim/clip_frac`). @default none */
  clipped?(s: LossSequence): readonly boolean[];
}
