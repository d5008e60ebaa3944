import { DatumShapeError } from '../errors/index.js';
import type { Datum } from '../types/datum.js';

type ArrayField = 'targetTokens' | 'logprobs' | 'advantages' | 'mask' | 'weights';

const isTokenId = (t: number): boolean => Number.isInteger(t) && t >= 0;

/**
 * Checks a datum's invariants before it reaches a backend:
 * - `modelInput` is non-empty; `targetTokens`, `logprobs`, `advantages`, `mask` (and `weights` when present)
 *   have the same length as `modelInput`;
 * - token ids are non-negative integers; logprobs, advantages and weights are finite; weights are ≥ 0;
 * - `mask` holds only 0 and 1, and `advantages` is 0 wherever `mask` is 0 (prompt and observation tokens must
 *   never carry a policy gradient — Tinker's RL losses have no mask, only the advantage neutralises them).
 * @param datum - the datum to check.
 * @param index - optional position in its batch, quoted in the message.
 * @throws DatumShapeError whose `field` names the culprit: `modelInput`, `targetTokens`, `logprobs`,
 *   `advantages`, `mask` or `weights`.
 */
export function validateDatum(datum: Datum, index?: number): void {
  const where = index === undefined ? '' : `datum ${index}: `;
  const T = datum.modelInput.length;
  if (T === 0) throw new DatumShapeError('modelInput', `${where}empty datum`);
  const fields: [ArrayField, readonly number[] | undefined][] = [
    ['targetTokens', datum.targetTokens],
    ['logprobs', datum.logprobs],
    ['advantages', datum.advantages],
    ['mask', datum.mask],
    ['weights', datum.weights],
  ];
  for (const [field, xs] of fields) {
    if (xs === undefined) {
      if (field === 'weights') continue;
      throw new DatumShapeError(field, `${where}missing`);
    }
    if (xs.length !== T) throw new DatumShapeError(field, `${where}length ${xs.length} differs from modelInput length ${T}`);
  }
  // One pass over the positions (this runs on every batch at the backend boundary).
  const { modelInput, targetTokens, logprobs, advantages, mask, weights } = datum;
  for (let t = 0; t < T; t++) {
    if (!isTokenId(modelInput[t]!)) throw new DatumShapeError('modelInput', `${where}position ${t} is not a token id (non-negative integer): ${modelInput[t]}`);
    if (!isTokenId(targetTokens[t]!))
      throw new DatumShapeError('targetTokens', `${where}position ${t} is not a token id (non-negative integer): ${targetTokens[t]}`);
    if (!Number.isFinite(logprobs[t])) throw new DatumShapeError('logprobs', `${where}position ${t} is not finite: ${logprobs[t]}`);
    const adv = advantages[t]!;
    if (!Number.isFinite(adv)) throw new DatumShapeError('advantages', `${where}position ${t} is not finite: ${adv}`);
    if (weights !== undefined) {
      const w = weights[t]!;
      if (!Number.isFinite(w)) throw new DatumShapeError('weights', `${where}position ${t} is not finite: ${w}`);
      if (w < 0) throw new DatumShapeError('weights', `${where}position ${t} is negative: ${w}`);
    }
    const m = mask[t];
    if (m !== 0 && m !== 1) throw new DatumShapeError('mask', `${where}position ${t} is ${m}; expected 0 or 1`);
    if (m === 0 && adv !== 0) throw new DatumShapeError('advantages', `${where}position ${t} has mask 0 but advantage ${adv}`);
  }
}

/**
 * {@link validateDatum} for every datum of a non-empty batch.
 * @throws DatumShapeError (`datums` when the batch is empty; otherwise as {@link validateDatum}).
 */
export function validateDatums(datums: readonly Datum[]): void {
  if (datums.length === 0) throw new DatumShapeError('datums', 'empty batch');
  datums.forEach((d, i) => {
    validateDatum(d, i);
  });
}
