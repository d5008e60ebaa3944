/** Warning codes the Trainer emits. */
export type WarningCode =
  /** Every group of the step was degenerate or dropped: no update this step. */
  | 'no_datums'
  /** The reward dropped samples (e.g. `gold_unparseable`, a reward that threw or timed out); the message names the first. */
  | 'dropped_samples'
  /** `budgets.maxTrajectoryTokens` exceeded the backend's context and was capped to it. */
  | 'budget_capped'
  /** Trajectories failed (`stopReason: 'error'`) and were dropped; the message names the first and its cause. */
  | 'rollout_error'
  /** Groups with fewer than `rollout.failure.minSurvivors` surviving trajectories were dropped whole. */
  | 'dropped_groups'
  /** Trajectories whose turns do not extend each other were left out of the update (`onPrefixMismatch: 'drop'`). */
  | 'prefix_mismatch'
  /** Most tool calls of a step named a tool the environment does not offer (each ends its trajectory as `invalid`). */
  | 'unknown_tool_calls'
  /** Most trajectories of a step ended because a turn reached `budgets.maxTurnTokens`. */
  | 'turn_budget_exhausted'
  /** Every group was degenerate for several steps in a row (nothing trained); the message names the likely cause. */
  | 'degenerate_groups'
  /** The reward returned results without boolean `correct` / `validFormat` (filled in; see the message). */
  | 'reward_shape'
  /** A training server's own message (Tinker `create_session` info / warning / error message, e.g. a deprecation). */
  | 'server_notice'
  /** A run with `kl.reference: 'base'` resumed from a checkpoint that does not record the base weights: the KL is to the resumed weights. */
  | 'kl_reference_resumed'
  /**
   * A metrics sink failed: a call threw, did not finish within `sinkLimits.callTimeoutMs`, was dropped (queue full or
   * still queued at the end; `count`), or `close()` did not finish within `sinkLimits.closeTimeoutMs`. Once per sink
   * and kind; the run goes on.
   */
  | 'sink_failed'
  /** `tinkerBackend({ engine: 'auto' })` could not tell the server's engine and assumes hosted Tinker's semantics. */
  | 'engine_assumed';

/** `warning`: something the user should know about that does not stop training. */
export interface WarningEvent {
  /** What kind of warning. */
  readonly code: WarningCode;
  /** What happened and what to do about it, in words. */
  readonly message: string;
  /** The step it happened in, when it belongs to one. */
  readonly step?: number;
  /** How many things were affected (e.g. tool calls naming an unknown tool), when the warning counts something. */
  readonly count?: number;
  /** Out of how many (e.g. all tool calls of the step). */
  readonly total?: number;
}
