import type { TrainingBackend } from '../backend/types.js';
import type { Demonstration } from '../rollout/demonstration-turn.js';
import type { Environment } from '../env/types.js';
import type { Example } from '../types/example.js';
import { renderDemonstration } from '../rollout/demonstration.js';
import { checkDemonstration } from '../rollout/demonstration-turn.js';
import { parseWithEnv } from '../rollout/parse-with-env.js';
import { DEFAULT_BUDGETS, type RolloutBudgets } from '../rollout/types.js';
import { supervisedDatum } from '../loss/index.js';
import { DemonstrationFitError } from '../errors/data-errors.js';
import { z } from '../util/zod.js';
import { SUPERVISED_OPTION_KEYS, trainSupervised, type SupervisedTrainOptions } from './supervised.js';
import { toolCallAccuracy, type ToolCallAccuracy } from './tool-call-accuracy.js';
import { checkOptions, parseOptions, partialBudgetsSchema, optionKeys } from '../util/check-options.js';

const COLD_START_OPTIONS = optionKeys<ColdStartOptions>({
  ...SUPERVISED_OPTION_KEYS,
  maxToolResponseTokens: true,
  maxTokens: true,
  heldOut: true,
  maxTurnTokens: true,
  minArgumentAccuracy: true,
  onWarning: true,
  budgets: true,
  onOverflow: true,
});

/** Options of {@link coldStart}: {@link SupervisedTrainOptions} (with `lengthBuckets` off by default) plus how demonstrations are rendered and checked. */
export interface ColdStartOptions<E extends Example = Example> extends SupervisedTrainOptions {
  /**
   * The RL run's budgets (pass the same object to `Trainer` and `evaluate`): `maxToolResponseTokens` is the
   * observation budget while rendering, `maxTurnTokens` the longest assistant turn a demonstration may have (a rollout
   * cuts a longer one, so the policy never finishes what it was shown), `maxTurns` / `maxToolCalls` how many turns /
   * calls it may have, and `maxTrajectoryTokens` (capped at the model's context) how long it may be.
   * @default DEFAULT_BUDGETS for what neither this nor the options below set
   */
  readonly budgets?: Partial<RolloutBudgets>;
  /** Observation budget handed to `env.step` while rendering (tokens). @default `budgets.maxToolResponseTokens` */
  readonly maxToolResponseTokens?: number;
  /** Longest demonstration (tokens). @default the backend's `maxContextTokens` (capped by `budgets.maxTrajectoryTokens`) */
  readonly maxTokens?: number;
  /**
   * What to do when some demonstrations do not fit (longer than the context, a turn longer than `maxTurnTokens`,
   * more turns or calls than the budgets allow): `'refuse'` throws a {@link DemonstrationFitError} before any
   * training, saying how many, the longest and what it needs; `'skip'` trains on the ones that fit and warns (through
   * `onWarning`) with the same facts. @default 'refuse'
   */
  readonly onOverflow?: 'refuse' | 'skip';
  /**
   * Demonstrations NOT trained on (other examples than `demonstrations`): after training, the model writes each of
   * their tool calls greedily from the demonstration's prompt, and `result.heldOut` reports how many it reproduced
   * (same tool; same tool and same arguments). This is the "is my cold start good enough?" check: RL cannot fix a
   * model that calls the tool with the wrong arguments. @default none (no check)
   */
  readonly heldOut?: readonly Demonstration<E>[];
  /** The RL run's turn budget (tokens). @default `budgets.maxTurnTokens` (no turn check without either) */
  readonly maxTurnTokens?: number;
  /** Warn (through `onWarning`) when `heldOut` argument accuracy is below this share (0..1). @default 0.8 */
  readonly minArgumentAccuracy?: number;
  /** Receives the fit and low-accuracy warnings. @default console.warn */
  readonly onWarning?: (message: string) => void;
}

/** How the demonstrations fit the model and the budgets, measured before training (see {@link ColdStartOptions.onOverflow}). */
export interface DemonstrationFit {
  /** Demonstrations given. */
  readonly total: number;
  /** Demonstrations that fit every limit (trained on). */
  readonly fit: number;
  /** Longer than `contextTokens`. */
  readonly overContext: number;
  /** With an assistant turn longer than `maxTurnTokens` (0 when no turn budget is known). */
  readonly overTurnTokens: number;
  /** With more assistant turns than `maxTurns`, or more tool calls than `maxToolCalls`. */
  readonly overTurns: number;
  /** The limit a demonstration's length was held to (tokens): the context, capped by `maxTrajectoryTokens`. */
  readonly contextTokens: number;
  /** The turn budget checked (tokens), when one was given. */
  readonly maxTurnTokens?: number;
  /** The longest demonstration: its example id and its length (tokens), i.e. the context it needs. */
  readonly longest: { readonly exampleId: string; readonly tokens: number };
  /** The longest assistant turn: its example id and its length (tokens, stop token included). */
  readonly longestTurn: { readonly exampleId: string; readonly tokens: number };
}

/** What {@link coldStart} did. */
export interface ColdStartResult {
  /** Demonstrations trained on. */
  readonly datums: number;
  /** Demonstrations left out because they did not fit (only with `onOverflow: 'skip'`). */
  readonly skipped: number;
  /** Longest demonstration, in tokens. */
  readonly longestTokens: number;
  /** Cross-entropy of the last step (nats per trained token). */
  readonly lastLoss: number;
  /** Longest demonstrated assistant turn, in tokens (its stop token included). */
  readonly longestTurnTokens: number;
  /** Demonstrations with an assistant turn longer than the turn budget (0 without one). */
  readonly longTurns: number;
  /** How the demonstrations fit, measured before training. */
  readonly fit: DemonstrationFit;
  /** Tool-call accuracy on `opts.heldOut` after training (absent without `heldOut`). */
  readonly heldOut?: ToolCallAccuracy;
}

const coldStartExtrasSchema = z.looseObject({
  budgets: partialBudgetsSchema.optional(),
  onOverflow: z.enum(['refuse', 'skip']).optional(),
  maxToolResponseTokens: z.number().int().positive().optional(),
  maxTurnTokens: z.number().int().positive().optional(),
  maxTokens: z.number().int().positive().optional(),
});

/**
 * Warms up a model on a new environment before RL (the "cold start" of ReTool / Search-R1). From fresh weights
 * a model does not know the tool-call format, so every rollout scores the same, every group is degenerate and RL
 * has nothing to learn from (the Trainer warns `degenerate_groups`). `coldStart` renders each demonstration through
 * the environment's own tools and the backend's chat template ({@link demonstrationDatum}: the same tokens a
 * rollout produces, tool results from `env.step`), checks that every one fits the model's context and the turn
 * budgets (refusing, or with `onOverflow: 'skip'` warning, when some do not), then runs supervised fine-tuning on
 * the assistant tokens only ({@link trainSupervised}). Continue with `new Trainer({ backend, … })` on the same backend.
 * @example
 * ```ts
 * const budgets = { maxToolCalls: 1, maxTurns: 2, maxTurnTokens: 48, maxTrajectoryTokens: 128, maxToolResponseTokens: 8 };
 * const demos = train.map((example) => ({ example, turns: [
 *   { call: { name: 'price', arguments: { country: example.meta.country } } }, { answer: example.answer }] }));
 * const { fit, heldOut } = await coldStart(backend, env, demos, { steps: 500, batchSize: 16, learningRate: 5e-3, seed: 1, budgets, heldOut: devDemos });
 * // fit: how many demonstrations fit; heldOut.argumentAccuracy: share of held-out calls written right (warns below 0.8)
 * ```
 * @throws DemonstrationError when a demonstration is wrongly shaped, calls a tool the environment does not offer or
 *   with arguments that do not fit its schema, or has turns after the one that ends the episode (names the example,
 *   turn and field).
 * @throws DemonstrationFitError when some demonstrations do not fit and `onOverflow` is not `'skip'`, or none fits.
 * @throws ConfigError for a wrongly typed `budgets`, `onOverflow` or token limit (naming the key).
 */
export async function coldStart<E extends Example>(
  backend: TrainingBackend,
  env: Environment<E>,
  demonstrations: readonly Demonstration<E>[],
  opts: ColdStartOptions<E>,
): Promise<ColdStartResult> {
  checkOptions('coldStart options', COLD_START_OPTIONS, opts, {
    signature: 'coldStart(backend, env, demonstrations, { steps, batchSize, learningRate, maxToolResponseTokens, … })',
  });
  parseOptions(coldStartExtrasSchema, opts, 'coldStart options');
  const budgets: RolloutBudgets = { ...DEFAULT_BUDGETS, ...opts.budgets };
  const maxToolResponseTokens = opts.maxToolResponseTokens ?? budgets.maxToolResponseTokens;
  const maxTurnTokens = opts.maxTurnTokens ?? opts.budgets?.maxTurnTokens;
  const renderer = await backend.renderer();
  const contextTokens = opts.maxTokens ?? Math.min(backend.maxContextTokens, opts.budgets?.maxTrajectoryTokens ?? Number.POSITIVE_INFINITY);
  const rendered = [];
  for (const [i, raw] of demonstrations.entries()) {
    const demo = checkDemonstration(raw, i);
    const r = await renderDemonstration(renderer, env as Environment, raw, { maxToolResponseTokens, index: i });
    const d = supervisedDatum({ tokens: r.tokens, mask: r.mask });
    const calls = r.texts.filter((t) => parseWithEnv(renderer, env as Environment, t).kind === 'tool').length;
    rendered.push({ id: demo.example.id, datum: d, tokens: d.modelInput.length, turnTokens: Math.max(...r.turnTokens), turns: r.texts.length, calls });
  }
  const overContext = rendered.filter((r) => r.tokens > contextTokens);
  const overTurnTokens = maxTurnTokens === undefined ? [] : rendered.filter((r) => r.turnTokens > maxTurnTokens);
  const overTurns = rendered.filter((r) => r.turns > budgets.maxTurns || r.calls > budgets.maxToolCalls);
  const bad = new Set([...overContext, ...overTurnTokens, ...overTurns]);
  const longest = rendered.reduce((a, b) => (b.tokens > a.tokens ? b : a), rendered[0] ?? { id: '-', tokens: 0, turnTokens: 0 });
  const longestTurn = rendered.reduce((a, b) => (b.turnTokens > a.turnTokens ? b : a), rendered[0] ?? { id: '-', tokens: 0, turnTokens: 0 });
  const fit: DemonstrationFit = {
    total: rendered.length,
    fit: rendered.length - bad.size,
    overContext: overContext.length,
    overTurnTokens: overTurnTokens.length,
    overTurns: overTurns.length,
    contextTokens,
    ...(maxTurnTokens !== undefined ? { maxTurnTokens } : {}),
    longest: { exampleId: longest.id, tokens: longest.tokens },
    longestTurn: { exampleId: longestTurn.id, tokens: longestTurn.turnTokens },
  };
  const onWarning = opts.onWarning ?? console.warn;
  if (bad.size > 0 || rendered.length === 0) {
    const message = describeMisfit(fit, budgets);
    if (opts.onOverflow !== 'skip' || fit.fit === 0) {
      throw new DemonstrationFitError(
        bad.size,
        rendered.length,
        `coldStart: ${message}${fit.fit > 0 ? `; or pass onOverflow: 'skip' to train on the ${fit.fit} that fit` : ''}`,
      );
    }
    onWarning(`coldStart: WARNING — skipping ${bad.size} of ${rendered.length} demonstrations: ${message}`);
  }
  const datums = rendered.filter((r) => !bad.has(r)).map((r) => r.datum);
  // Mixed-length batches by default: demonstrations of different kinds (a direct answer, a tool call) differ in
  // length, and length buckets would make each batch one kind.
  const {
    heldOut,
    minArgumentAccuracy = 0.8,
    onWarning: _w,
    maxTurnTokens: _t,
    maxToolResponseTokens: _r,
    maxTokens: _m,
    budgets: _b,
    onOverflow: _o,
    ...train
  } = opts;
  const { lastLoss } = await trainSupervised(backend, datums, { lengthBuckets: false, ...train });
  const result = {
    datums: datums.length,
    skipped: bad.size,
    longestTokens: longest.tokens,
    lastLoss,
    longestTurnTokens: longestTurn.turnTokens,
    longTurns: overTurnTokens.length,
    fit,
  };
  if (!heldOut) return result;
  const acc = await toolCallAccuracy(backend, env, heldOut, { maxToolResponseTokens, ...(maxTurnTokens !== undefined ? { maxTurnTokens } : {}) });
  if (acc.calls > 0 && acc.argumentAccuracy < minArgumentAccuracy) onWarning(describeLowAccuracy(acc, minArgumentAccuracy, maxTurnTokens));
  return { ...result, heldOut: acc };
}

/** Why demonstrations do not fit, with the numbers and the fix. */
function describeMisfit(fit: DemonstrationFit, budgets: RolloutBudgets): string {
  if (fit.total === 0) return 'no demonstrations were given';
  const parts: string[] = [];
  if (fit.overContext > 0) {
    parts.push(
      `${fit.overContext} of ${fit.total} are longer than the ${fit.contextTokens}-token context (longest: '${fit.longest.exampleId}', ${fit.longest.tokens} tokens; ` +
        `it needs contextTokens / budgets.maxTrajectoryTokens ≥ ${fit.longest.tokens})`,
    );
  }
  if (fit.overTurnTokens > 0) {
    parts.push(
      `${fit.overTurnTokens} of ${fit.total} have an assistant turn longer than maxTurnTokens ${fit.maxTurnTokens} (longest: '${fit.longestTurn.exampleId}', ${fit.longestTurn.tokens} tokens; ` +
        `a rollout cuts such a turn, so the call is never finished: raise budgets.maxTurnTokens to ≥ ${fit.longestTurn.tokens})`,
    );
  }
  if (fit.overTurns > 0)
    parts.push(
      `${fit.overTurns} of ${fit.total} have more turns than budgets.maxTurns ${budgets.maxTurns} or more tool calls than budgets.maxToolCalls ${budgets.maxToolCalls}`,
    );
  return `${fit.total - fit.fit} of ${fit.total} demonstrations do not fit: ${parts.join('; ')}`;
}

/** The post-training warning: which failure dominates the held-out misses (length, format, tool, arguments) and its fix. */
function describeLowAccuracy(acc: ToolCallAccuracy, minArgumentAccuracy: number, maxTurnTokens: number | undefined): string {
  const miss = acc.misses[0];
  const [kind, count] = (Object.entries(acc.failures) as [keyof ToolCallAccuracy['failures'], number][]).reduce((a, b) => (b[1] > a[1] ? b : a));
  const fixes: Record<keyof ToolCallAccuracy['failures'], string> = {
    length: `length: the turn ran out of tokens before the call was finished; raise budgets.maxTurnTokens${maxTurnTokens !== undefined ? ` (now ${maxTurnTokens})` : ''} or shorten the call`,
    format: `format: the model writes no call or a malformed one; train longer (more steps, or a higher learningRate) or give more demonstrations that call the tool`,
    tool: `tool: the model calls another tool; give more demonstrations of when to call which tool`,
    arguments: `arguments: the right tool with other arguments; train longer (more steps), or check the arguments are few tokens to copy (tokenize(renderer, text); docs/custom-environment.md)`,
  };
  return (
    `coldStart: the model reproduces ${(acc.argumentAccuracy * 100).toFixed(1)}% of ${acc.calls} held-out tool calls with the right arguments ` +
    `(right tool: ${(acc.toolNameAccuracy * 100).toFixed(1)}%; want ≥ ${(minArgumentAccuracy * 100).toFixed(0)}%)` +
    (miss ? `, e.g. ${miss.exampleId}: expected ${miss.expected}, got ${miss.got}` : '') +
    `. Misses: ${acc.failures.length} length, ${acc.failures.format} format, ${acc.failures.tool} tool, ${acc.failures.arguments} arguments. ` +
    `Most are ${count > 0 ? fixes[kind] : 'unclassified'}. RL rarely fixes this.`
  );
}

export type { Demonstration } from '../rollout/demonstration-turn.js';
