import { AgentRLError } from './base.js';

/** `train()` was called on a Trainer whose `train()` is still running (one run per Trainer at a time). */
export class TrainerBusyError extends AgentRLError {
  static readonly code = 'TRAINER_BUSY' as const;
  readonly code = 'TRAINER_BUSY' as const;
  constructor() {
    super('train() is already running on this Trainer; await it (or stop() it) before calling train() again');
    this.name = 'TrainerBusyError';
  }
}
