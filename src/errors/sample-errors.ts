import { AgentRLError } from './base.js';

/**
 * A sampler returned a sequence that cannot be trained on: a token id that is not an integer in `[0, vocabSize)`,
 * a logprob that is not finite or is above 0, token and logprob arrays of different lengths, more tokens than the
 * requested `maxTokens`, or an unknown stop reason. Raised where the sequence enters the rollout engine; it ends
 * that trajectory (`stopReason: 'error'`, stage `sample`), never the run.
 */
export class SampledSequenceError extends AgentRLError {
  /** Stable identifier of this error class (`'SAMPLED_SEQUENCE_INVALID'`), kept by minifiers: match on it. */
  static readonly code = 'SAMPLED_SEQUENCE_INVALID' as const;
  /** The class's `code`, on every instance (narrows in a `switch (e.code)`). */
  readonly code = 'SAMPLED_SEQUENCE_INVALID' as const;
  /** Creates the error; each `readonly` parameter becomes the property of the same name. */
  constructor(
    /** The offending field and position, e.g. `'tokens[3]'`, `'logprobs[0]'`, `'tokens'`. */
    readonly field: string,
    message: string,
  ) {
    super(`sampled sequence ${field}: ${message}`);
    this.name = 'SampledSequenceError';
  }
}
