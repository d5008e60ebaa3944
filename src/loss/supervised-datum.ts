import { ConfigError, DatumShapeError } from '../errors/index.js';
import type { Datum } from '../types/datum.js';

/** Input of {@link supervisedDatum}. */
export interface SupervisedDatumInput {
  /** The whole token sequence (prompt, demonstration, observations), length ≥ 2. */
  readonly tokens: readonly number[];
  /**
   * Per-token training weight aligned with `tokens` (same length): 1 on tokens to learn (the demonstration's
   * assistant tokens), 0 on context (prompt, tool observations). Fractional weights ≥ 0 are allowed and become
   * `weights`; `mask` is 1 where the weight is > 0.
   */
  readonly mask: readonly number[];
  /** Cut every array to at most this many positions (integer ≥ 1). @default unlimited */
  readonly maxTokens?: number;
}

/**
 * A cold-start SFT datum (`cross_entropy`) from a token sequence and a trainable mask, right-shifted like
 * {@link buildDatum}: `modelInput = tokens[:-1]`, `targetTokens = tokens[1:]`, `weights = mask[1:]`,
 * `mask = [mask[1:] > 0]`, `logprobs` and `advantages` all 0. Tinker's `cross_entropy` loss reads
 * `target_tokens` and `weights` (tinker-cookbook `docs/losses.mdx`).
 * @throws DatumShapeError (`tokens`, `mask`) when there are fewer than 2 tokens, lengths differ, or a weight is
 *   negative or not finite.
 * @throws ConfigError when `maxTokens` is not an integer ≥ 1.
 */
export function supervisedDatum(input: SupervisedDatumInput): Datum {
  const { tokens, mask, maxTokens } = input;
  if (maxTokens !== undefined && !(Number.isInteger(maxTokens) && maxTokens >= 1)) {
    throw new ConfigError('supervised datum', [{ path: 'maxTokens', message: `expected an integer ≥ 1, got ${maxTokens}` }]);
  }
  if (tokens.length < 2) throw new DatumShapeError('tokens', `needs at least 2 tokens, got ${tokens.length}`);
  if (mask.length !== tokens.length) {
    throw new DatumShapeError('mask', `length ${mask.length} differs from tokens length ${tokens.length}`);
  }
  mask.forEach((w, i) => {
    if (!(Number.isFinite(w) && w >= 0)) throw new DatumShapeError('mask', `weight ${i} must be finite and ≥ 0, got ${w}`);
  });
  const T = Math.min(tokens.length - 1, maxTokens ?? Number.POSITIVE_INFINITY);
  const weights = mask.slice(1, T + 1);
  return {
    modelInput: tokens.slice(0, T),
    targetTokens: tokens.slice(1, T + 1),
    logprobs: new Array<number>(T).fill(0),
    advantages: new Array<number>(T).fill(0),
    mask: weights.map((w) => (w > 0 ? 1 : 0)),
    weights,
  };
}
