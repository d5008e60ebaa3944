import { BackendInputError, DatumShapeError } from '../errors/index.js';
import { validateDatum } from '../loss/validate-datum.js';
import type { Datum } from '../types/datum.js';

/**
 * The check every backend's public `forwardBackward` runs on its batch before any work: DESIGN's datum invariants
 * ({@link validateDatum}: equal lengths, token ids, finite numbers, mask ∈ {0, 1}, advantage 0 wherever mask is 0;
 * weights only finite, since a custom loss's weighted backward carries signed weights), plus what the backend knows: sequences of at most `contextTokens`, token ids below `vocabSize`. One
 * pass over each datum's positions (plus one over its ids when the vocabulary is known).
 * @param limits.vocabSize - token ids must be below it. @default unchecked (a remote backend leaves it to the server)
 * @throws BackendInputError naming the field, e.g. `datums[3].mask`, with the {@link DatumShapeError} as its cause.
 */
export function checkBackendDatums(datums: readonly Datum[], limits: { readonly contextTokens: number; readonly vocabSize?: number }): void {
  if (datums.length === 0) throw new BackendInputError('datums', 'empty batch');
  datums.forEach((d, i) => {
    try {
      // Weights may be negative here: a custom loss runs as a cross-entropy backward whose weights carry the
      // loss's gradient (Tinker's cross_entropy takes any finite weights); they are checked for finiteness only.
      if (d.weights === undefined) validateDatum(d);
      else {
        validateDatum({ ...d, weights: undefined });
        if (d.weights.length !== d.modelInput.length)
          throw new DatumShapeError('weights', `length ${d.weights.length} differs from modelInput length ${d.modelInput.length}`);
        const bad = d.weights.findIndex((w) => !Number.isFinite(w));
        if (bad >= 0) throw new DatumShapeError('weights', `position ${bad} is not finite: ${d.weights[bad]}`);
      }
    } catch (e) {
      if (e instanceof DatumShapeError) throw new BackendInputError(`datums[${i}].${e.field}`, e.message.slice(e.field.length + 2), { cause: e });
      throw e;
    }
    const T = d.modelInput.length;
    if (T > limits.contextTokens) throw new BackendInputError(`datums[${i}].modelInput`, `length ${T} exceeds the context of ${limits.contextTokens} tokens`);
    const V = limits.vocabSize;
    if (V !== undefined) {
      for (let t = 0; t < T; t++) {
        if (d.modelInput[t]! >= V)
          throw new BackendInputError(`datums[${i}].modelInput`, `token ${d.modelInput[t]} at position ${t} is outside the vocabulary of ${V}`);
        if (d.targetTokens[t]! >= V)
          throw new BackendInputError(`datums[${i}].targetTokens`, `token ${d.targetTokens[t]} at position ${t} is outside the vocabulary of ${V}`);
      }
    }
  });
}
