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
 */
export type LossConfig =
  | { readonly kind: 'ppo'; readonly clipLow: number; readonly clipHigh: number; readonly aggregation?: Aggregation }
  | { readonly kind: 'importance_sampling'; readonly aggregation?: Aggregation }
  | { readonly kind: 'cispo'; readonly clipLow?: number; readonly clipHigh: number; readonly aggregation?: Aggregation }
  | { readonly kind: 'cross_entropy'; readonly aggregation?: Aggregation };

/** The loss kinds, for exhaustive switches. */
export type LossKind = LossConfig['kind'];
