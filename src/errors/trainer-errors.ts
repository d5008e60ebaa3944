import { AgentRLError } from './base.js';

/** `train()` was called on a Trainer whose `train()` is still running (one run per Trainer at a time). */
export class TrainerBusyError extends AgentRLError {
  /** Stable identifier of this error class (`'TRAINER_BUSY'`), kept by minifiers: match on it. */
  static readonly code = 'TRAINER_BUSY' as const;
  /** The class's `code`, on every instance (narrows in a `switch (e.code)`). */
  readonly code = 'TRAINER_BUSY' as const;
  /** Creates the error (its message says to await or stop the running `train()`). */
  constructor() {
    super('train() is already running on this Trainer; await it (or stop() it) before calling train() again');
    this.name = 'TrainerBusyError';
  }
}
