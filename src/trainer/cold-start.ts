import type { TrainingBackend } from '../backend/types.js';
import type { Environment } from '../env/types.js';
import type { Example } from '../types/example.js';
import { renderDemonstration, type DemonstrationTurn } from '../rollout/demonstration.js';
import { supervisedDatum } from '../loss/index.js';
import { DatumShapeError } from '../errors/data-errors.js';
import { trainSupervised, type SupervisedTrainOptions } from './supervised.js';
import { toolCallAccuracy, type ToolCallAccuracy } from './tool-call-accuracy.js';
import { checkOptions, strictKeys } from '../util/check-options.js';

const COLD_START_OPTIONS = strictKeys(['maxToolResponseTokens', 'maxTokens', 'heldOut', 'maxTurnTokens', 'minArgumentAccuracy', 'onWarning', 'steps', 'batchSize', 'learningRate', 'warmupSteps', 'minLearningRateRatio', 'adam', 'seed', 'saveEvery', 'savePath', 'lengthBuckets', 'onStep']);

/**
 * One demonstrated episode: the example and the assistant turns a good (or deliberately imperfect) policy would
 * write, as plain text (`'<tool_call>\n{"name": …}\n</tool_call>'`, then the final answer) or as
 * {@link DemonstrationTurn}s. Tool results are not written: the environment produces them when the demonstration
 * is rendered, exactly as in a rollout.
 */
export interface Demonstration<E extends Example = Example> {
  /** The dataset example the episode answers. */
  readonly example: E;
  /** The assistant turns, in order: plain text, or a {@link DemonstrationTurn} that also fixes the observation. */
  readonly turns: readonly (string | DemonstrationTurn)[];
}

/** Options of {@link coldStart}: {@link SupervisedTrainOptions} (with `lengthBuckets` off by default) plus how demonstrations are rendered. */
export interface ColdStartOptions<E extends Example = Example> extends SupervisedTrainOptions {
  /** Observation budget handed to `env.step` while rendering (tokens); use the RL run's `budgets.maxToolResponseTokens`. */
  readonly maxToolResponseTokens: number;
  /**
   * Demonstrations longer than this many tokens are left out (counted in `skipped`) rather than cut, which would
   * lose their final answer. @default the backend's `maxContextTokens`
   */
  readonly maxTokens?: number;
  /**
   * Demonstrations NOT trained on (other examples than `demonstrations`): after training, the model writes each of
   * their tool calls greedily from the demonstration's prompt, and `result.heldOut` reports how many it reproduced
   * (same tool; same tool and same arguments). This is the "is my cold start good enough?" check: RL cannot fix a
   * model that calls the tool with the wrong arguments. @default none (no check)
   */
  readonly heldOut?: readonly Demonstration<E>[];
  /**
   * The RL run's turn budget (`budgets.maxTurnTokens`, tokens). A demonstrated assistant turn longer than this is
   * counted in `result.longTurns` and warned about through `onWarning` (a rollout cuts such a turn at the budget, so
   * the policy never gets to finish the call it was shown, and every sampled call is `invalid`); the `heldOut` check
   * writes each call within it. @default no check; the held-out check allows 2 × the demonstrated turn + 8
   */
  readonly maxTurnTokens?: number;
  /** Warn (through `onWarning`) when `heldOut` argument accuracy is below this share (0..1). @default 0.8 */
  readonly minArgumentAccuracy?: number;
  /** Receives the low-accuracy warning. @default console.warn */
  readonly onWarning?: (message: string) => void;
}

/** What {@link coldStart} did. */
export interface ColdStartResult {
  /** Demonstrations trained on. */
  readonly datums: number;
  /** Demonstrations left out for exceeding `maxTokens`. */
  readonly skipped: number;
  /** Longest demonstration, in tokens. */
  readonly longestTokens: number;
  /** Cross-entropy of the last step (nats per trained token). */
  readonly lastLoss: number;
  /** Longest demonstrated assistant turn, in tokens (its stop token included). */
  readonly longestTurnTokens: number;
  /** Demonstrations with an assistant turn longer than `opts.maxTurnTokens` (0 without that option). */
  readonly longTurns: number;
  /** Tool-call accuracy on `opts.heldOut` after training (absent without `heldOut`). */
  readonly heldOut?: ToolCallAccuracy;
}

/**
 * Warms up a model on a new environment before RL (the "cold start" of ReTool / Search-R1). From fresh weights
 * a model does not know the tool-call format, so every rollout scores the same, every group is degenerate and RL
 * has nothing to learn from (the Trainer warns `degenerate_groups`). `coldStart` renders each demonstration through
 * the environment's own tools and the backend's chat template ({@link demonstrationDatum}: the same tokens a
 * rollout produces, tool results from `env.step`), then runs supervised fine-tuning on the assistant tokens only
 * ({@link trainSupervised}). Continue with `new Trainer({ backend, … })` on the same backend.
 * @example
 * ```ts
 * const demos = train.map((example) => ({ example, turns: [
 *   '<tool_call>\n{"name": "price", "arguments": {"country": "Peru"}}\n</tool_call>', example.answer] }));
 * const { heldOut } = await coldStart(backend, env, demos, { steps: 500, batchSize: 16, learningRate: 5e-3, seed: 1, maxToolResponseTokens: 8, heldOut: devDemos });
 * // heldOut.argumentAccuracy: share of held-out tool calls written with the right arguments (warns below 0.8)
 * ```
 * @throws DemonstrationError when a demonstration calls a tool the environment does not offer, omits a required
 *   argument, or has turns after the one that ends the episode (names the example and turn).
 * @throws DatumShapeError when no demonstration fits in `maxTokens`.
 */
export async function coldStart<E extends Example>(
  backend: TrainingBackend,
  env: Environment<E>,
  demonstrations: readonly Demonstration<E>[],
  opts: ColdStartOptions<E>,
): Promise<ColdStartResult> {
  checkOptions('coldStart options', COLD_START_OPTIONS, opts, { signature: 'coldStart(backend, env, demonstrations, { steps, batchSize, learningRate, maxToolResponseTokens, … })' });
  const renderer = await backend.renderer();
  const maxTokens = opts.maxTokens ?? backend.maxContextTokens;
  const datums = [];
  let skipped = 0;
  let longest = 0;
  let longestTurn = 0;
  let longTurns = 0;
  for (const demo of demonstrations) {
    const turns = demo.turns.map((t) => (typeof t === 'string' ? { text: t } : t));
    const { tokens, mask } = await renderDemonstration(renderer, env as Environment, { example: demo.example, turns }, { maxToolResponseTokens: opts.maxToolResponseTokens });
    const turnTokens = longestRun(mask);
    longestTurn = Math.max(longestTurn, turnTokens);
    if (opts.maxTurnTokens !== undefined && turnTokens > opts.maxTurnTokens) longTurns++;
    const d = supervisedDatum({ tokens, mask });
    longest = Math.max(longest, d.modelInput.length);
    if (d.modelInput.length > maxTokens) skipped++;
    else datums.push(d);
  }
  if (datums.length === 0) {
    throw new DatumShapeError('demonstrations', `none of ${demonstrations.length} fits in ${maxTokens} tokens (longest ${longest}); raise maxTokens or the backend's context`);
  }
  // Mixed-length batches by default: demonstrations of different kinds (a direct answer, a tool call) differ in
  // length, and length buckets would make each batch one kind.
  const { heldOut, minArgumentAccuracy = 0.8, onWarning = console.warn, maxTurnTokens, maxToolResponseTokens: _obs, maxTokens: _cut, ...train } = opts;
  if (longTurns > 0) {
    onWarning(
      `coldStart: ${longTurns} of ${demonstrations.length} demonstrations have an assistant turn longer than maxTurnTokens ${maxTurnTokens} ` +
        `(longest ${longestTurn} tokens): rollouts cut such a turn, so the policy never finishes what it was shown; raise budgets.maxTurnTokens`,
    );
  }
  const { lastLoss } = await trainSupervised(backend, datums, { lengthBuckets: false, ...train });
  const result = { datums: datums.length, skipped, longestTokens: longest, lastLoss, longestTurnTokens: longestTurn, longTurns };
  if (!heldOut) return result;
  const acc = await toolCallAccuracy(backend, env, heldOut, { maxToolResponseTokens: opts.maxToolResponseTokens, ...(maxTurnTokens !== undefined ? { maxTurnTokens } : {}) });
  if (acc.calls > 0 && acc.argumentAccuracy < minArgumentAccuracy) {
    const miss = acc.misses[0];
    onWarning(
      `coldStart: the model reproduces ${(acc.argumentAccuracy * 100).toFixed(1)}% of ${acc.calls} held-out tool calls with the right arguments ` +
        `(right tool: ${(acc.toolNameAccuracy * 100).toFixed(1)}%; want ≥ ${(minArgumentAccuracy * 100).toFixed(0)}%)` +
        (miss ? `, e.g. ${miss.exampleId}: expected ${miss.expected}, got ${miss.got}` : '') +
        `. RL rarely fixes wrong arguments: train longer (more steps), or check the arguments are single tokens (tokenize(renderer, text); docs/custom-environment.md)`,
    );
  }
  return { ...result, heldOut: acc };
}

/** Length of the longest run of 1s in `mask`: the longest assistant turn of a rendered demonstration, in tokens. */
function longestRun(mask: readonly number[]): number {
  let best = 0;
  let run = 0;
  for (const m of mask) {
    run = m > 0 ? run + 1 : 0;
    best = Math.max(best, run);
  }
  return best;
}
