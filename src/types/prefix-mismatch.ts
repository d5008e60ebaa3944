/**
 * What happens when a turn's prompt does not extend the tokens before it, so the turns cannot be merged into one
 * sequence the model saw (the chat template rewrote earlier history once a message was appended, e.g. Qwen3 dropping
 * earlier `<think>` blocks). One option, `onPrefixMismatch`, with these three values wherever the event is met
 * (the Trainer, `runRollouts` / `runGroup`, `assembleTrainingData`, `buildDatums`); the event is one error,
 * `PromptPrefixError` (code `PROMPT_PREFIX_MISMATCH`).
 * - `'drop'` (the default everywhere, {@link DEFAULT_PREFIX_MISMATCH}): that trajectory is left out of training (a
 *   rollout ends it as an `error` at stage `next_prompt`; datum building lists it in `dropped`); the rest go on.
 * - `'split'`: the trajectory goes on (a rollout re-renders the next prompt from the messages) and its datums split
 *   at the mismatch: one datum per extending run of turns (tinker-cookbook `trajectory_to_data`).
 * - `'fail'`: the call fails (a rollout call rejects with `RolloutFailedError`, datum building throws
 *   `PromptPrefixError`).
 */
export type PrefixMismatchPolicy = 'drop' | 'split' | 'fail';

/** The default {@link PrefixMismatchPolicy}, the same at every place that takes one. */
export const DEFAULT_PREFIX_MISMATCH: PrefixMismatchPolicy = 'drop';

/** The policies, for validation. */
export const PREFIX_MISMATCH_POLICIES = ['drop', 'split', 'fail'] as const satisfies readonly PrefixMismatchPolicy[];
