import { AgentRLError } from './base.js';

/** A datum, batch or dataset row is malformed (e.g. arrays of different lengths). `field` names the culprit. */
export class DatumShapeError extends AgentRLError {
  readonly code = 'DATUM_SHAPE' as const;
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(`${field}: ${message}`);
    this.name = 'DatumShapeError';
  }
}

/**
 * A turn's prompt does not extend the tokens accumulated so far, so the trajectory cannot be
 * merged into one datum without training on a sequence the model never saw.
 */
export class PromptPrefixError extends AgentRLError {
  readonly code = 'PROMPT_PREFIX_MISMATCH' as const;
  constructor(
    message: string,
    /** Index of the first differing token. */
    readonly position: number,
  ) {
    super(message);
    this.name = 'PromptPrefixError';
  }
}

/** A dataset file could not be read or a row lacks required fields. */
export class DatasetError extends AgentRLError {
  readonly code = 'DATASET_INVALID' as const;
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'DatasetError';
  }
}
