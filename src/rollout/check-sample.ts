import { SampledSequenceError } from '../errors/sample-errors.js';
import type { SampledSequence } from '../types/sampling.js';

const isList = (v: unknown): v is readonly unknown[] => Array.isArray(v) || (ArrayBuffer.isView(v) && !(v instanceof DataView));

/** What a sampled sequence must fit: the renderer's vocabulary and the call's token limit. */
export interface SampleBounds {
  /** Token ids must lie in `[0, vocabSize)`. */
  readonly vocabSize: number;
  /** At most this many tokens (the `maxTokens` the call asked for). */
  readonly maxTokens: number;
}

/**
 * Checks one sequence a sampler returned before the rollout engine uses it: every token id an integer in
 * `[0, vocabSize)`, every logprob finite and ≤ 0 (a natural-log probability; no tolerance — log-softmax never
 * exceeds 0 in IEEE arithmetic), as many logprobs as tokens, at most `maxTokens` tokens, and `stopReason`
 * `'stop'` or `'length'`. Any server, however broken or hostile, is held to this.
 * @throws SampledSequenceError naming the first bad field and position.
 */
export function checkSampledSequence(seq: SampledSequence, bounds: SampleBounds): void {
  if (typeof seq !== 'object' || seq === null || !isList(seq.tokens) || !isList(seq.logprobs)) {
    throw new SampledSequenceError('sequence', 'expected { tokens: number[], logprobs: number[], stopReason }');
  }
  const { tokens, logprobs } = seq;
  if (tokens.length > bounds.maxTokens) throw new SampledSequenceError('tokens', `${tokens.length} tokens, more than the ${bounds.maxTokens} requested`);
  if (logprobs.length !== tokens.length) throw new SampledSequenceError('logprobs', `${logprobs.length} logprobs for ${tokens.length} tokens`);
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (typeof t !== 'number' || !Number.isInteger(t) || t < 0 || t >= bounds.vocabSize) {
      throw new SampledSequenceError(`tokens[${i}]`, `token id ${String(t)} is not an integer in [0, ${bounds.vocabSize})`);
    }
    const lp = logprobs[i];
    if (typeof lp !== 'number' || !Number.isFinite(lp) || lp > 0) {
      throw new SampledSequenceError(`logprobs[${i}]`, `logprob ${String(lp)} is not a finite number ≤ 0`);
    }
  }
  if (seq.stopReason !== 'stop' && seq.stopReason !== 'length') {
    throw new SampledSequenceError('stopReason', `${JSON.stringify(seq.stopReason)} is not 'stop' or 'length'`);
  }
}
