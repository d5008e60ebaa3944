import { AgentRLError } from './base.js';

/** A datum, batch or dataset row is malformed (e.g. arrays of different lengths). `field` names the culprit. */
export class DatumShapeError extends AgentRLError {
  /** Stable identifier of this error class (`'DATUM_SHAPE'`), kept by minifiers: match on it. */
  static readonly code = 'DATUM_SHAPE' as const;
  /** The class's `code`, on every instance (narrows in a `switch (e.code)`). */
  readonly code = 'DATUM_SHAPE' as const;
  /** Creates the error; each `readonly` parameter becomes the property of the same name. */
  constructor(
    /** The field at fault (a dotted path or a response field). */
    readonly field: string,
    message: string,
  ) {
    super(`${field}: ${message}`);
    this.name = 'DatumShapeError';
  }
}

/**
 * A turn's prompt does not extend the tokens before it, so the trajectory cannot be merged into one datum without
 * training on a sequence the model never saw. The one error of this event, wherever it is met: a chat template that
 * rewrites earlier history once a message is appended (`renderer.nextPrompt`, e.g. Qwen3 dropping `<think>` blocks),
 * or turns whose recorded prompts do not extend each other (`buildDatums`). `onPrefixMismatch` decides what happens
 * (see `PrefixMismatchPolicy`).
 */
export class PromptPrefixError extends AgentRLError {
  /** Stable identifier of this error class (`'PROMPT_PREFIX_MISMATCH'`), kept by minifiers: match on it. */
  static readonly code = 'PROMPT_PREFIX_MISMATCH' as const;
  /** The class's `code`, on every instance (narrows in a `switch (e.code)`). */
  readonly code = 'PROMPT_PREFIX_MISMATCH' as const;
  /** Index of the first differing token, when known (datum building knows it; a template check may not). */
  readonly position: number | undefined;
  /** `position` (when known) and `cause` in `options`. */
  constructor(message: string, options: { readonly position?: number } & ErrorOptions = {}) {
    super(message, options);
    this.name = 'PromptPrefixError';
    this.position = options.position;
  }
}

/** A dataset file could not be read or a row lacks required fields. */
export class DatasetError extends AgentRLError {
  /** Stable identifier of this error class (`'DATASET_INVALID'`), kept by minifiers: match on it. */
  static readonly code = 'DATASET_INVALID' as const;
  /** The class's `code`, on every instance (narrows in a `switch (e.code)`). */
  readonly code = 'DATASET_INVALID' as const;
  /** Creates the error; each `readonly` parameter becomes the property of the same name. */
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'DatasetError';
  }
}

/**
 * A cold-start demonstration the environment cannot play, or one shaped wrongly: a turn calls a tool the environment
 * does not offer or with arguments that do not fit its schema (a missing required argument, a wrong type, a value
 * outside the enum), a turn object has an unknown key or a value of the wrong type, or turns follow one that ends the
 * episode (they would be silently left out). `exampleId`, `turn` (0-based; -1 for the demonstration as a whole) and
 * `field` (a dotted path inside the turn, e.g. `call.arguments.country`) name the place.
 */
export class DemonstrationError extends AgentRLError {
  /** Stable identifier of this error class (`'DEMONSTRATION_INVALID'`), kept by minifiers: match on it. */
  static readonly code = 'DEMONSTRATION_INVALID' as const;
  /** The class's `code`, on every instance (narrows in a `switch (e.code)`). */
  readonly code = 'DEMONSTRATION_INVALID' as const;
  /** Creates the error; each `readonly` parameter becomes the property of the same name. */
  constructor(
    /** Id of the demonstration's example (`#INDEX` in the list when the demonstration has no usable example). */
    readonly exampleId: string,
    /** Index of the demonstrated turn at fault, 0-based; -1 when the fault is the demonstration's own shape. */
    readonly turn: number,
    message: string,
    /** Dotted path of the field at fault inside the turn (`call.arguments.country`, `calls.1.name`, `say`), when one is. */
    readonly field?: string,
  ) {
    super(`demonstration for example '${exampleId}'${turn >= 0 ? `, turn ${turn + 1}` : ''}${field ? `, field '${field}'` : ''}: ${message}`);
    this.name = 'DemonstrationError';
  }
}

/**
 * `coldStart` refused to train because some demonstrations do not fit the model: longer than its context
 * (`contextTokens`), with an assistant turn longer than the turn budget (`maxTurnTokens`, a rollout cuts such a turn),
 * or with more turns / tool calls than the budgets allow. Training on the rest would teach only the short kind
 * (typically: every tool-calling demonstration is the long one) and RL would then see only degenerate groups.
 * Fix the budgets, or pass `onOverflow: 'skip'` to train on the ones that fit (with a warning).
 */
export class DemonstrationFitError extends AgentRLError {
  /** Stable identifier of this error class (`'DEMONSTRATION_TOO_LONG'`), kept by minifiers: match on it. */
  static readonly code = 'DEMONSTRATION_TOO_LONG' as const;
  /** The class's `code`, on every instance (narrows in a `switch (e.code)`). */
  readonly code = 'DEMONSTRATION_TOO_LONG' as const;
  /** Creates the error; each `readonly` parameter becomes the property of the same name. */
  constructor(
    /** Demonstrations that do not fit, of `total`. */
    readonly misfits: number,
    /** Demonstrations given. */
    readonly total: number,
    message: string,
  ) {
    super(message);
    this.name = 'DemonstrationFitError';
  }
}
