import type { ResolvedTrainerOptions } from './resolved-options.js';
import type { TurnEvent } from '../rollout/types.js';
import type { CheckpointEvent, EvalEvent, GroupEvent, RolloutEndEvent, RolloutStartEvent, StepEvent, TrajectoryEvent, WarningEvent } from './events.js';

/** The Trainer's events and their listener signatures (eventemitter3 EventMap). */
export interface TrainerEvents {
  /** The resolved configuration, defaults filled in, emitted once at the start of `train()`. */
  config: (e: ResolvedTrainerOptions) => void;
  /** A step's rollout begins. */
  'rollout:start': (e: RolloutStartEvent) => void;
  /** One assistant turn ended. */
  turn: (e: TurnEvent & { readonly step: number }) => void;
  /** One trajectory finished and was scored. */
  trajectory: (e: TrajectoryEvent) => void;
  /** One group's rewards and advantages. */
  group: (e: GroupEvent) => void;
  /** A round's rollout ended (statistics). */
  'rollout:end': (e: RolloutEndEvent) => void;
  /** A step's update is done (every metric). */
  step: (e: StepEvent) => void;
  /** A checkpoint was written. */
  checkpoint: (e: CheckpointEvent) => void;
  /** An evaluation during training finished. */
  eval: (e: EvalEvent) => void;
  /** Something the user should know that does not stop training. */
  warning: (e: WarningEvent) => void;
}

/** Names of the Trainer's events. */
export type TrainerEventName = keyof TrainerEvents;
