import type { z } from '../util/zod.js';
import type { RolloutBudgets } from '../rollout/types.js';
import { trainerOptionsSchema } from './config.js';
import { toolDefinitionIssues } from '../env/tool-definitions.js';
import { ConfigError } from '../errors/config-error.js';
import { configIssuesFromZod, schemaKeyPaths, schemaKeysAt } from '../errors/config-issues.js';
import { exampleIssues } from '../data/validate.js';
import { assertZodPeer } from '../util/zod-peer.js';
import { TRAINER_DEFAULTS, type TrainerOptions, type WithDefaults } from './options.js';

/**
 * Trainer options after validation (`trainer.options`, and the payload of the `config` event): {@link TrainerOptions}
 * with every default of {@link TRAINER_DEFAULTS} filled in, the unset budgets fitted to the backend's context
 * ({@link resolveBudgets}) and `runName` set ({@link defaultRunName} when not given).
 */
export type ResolvedTrainerOptions = WithDefaults<TrainerOptions, typeof TRAINER_DEFAULTS> & Required<Pick<TrainerOptions, 'runName'>>;

// What the schema outputs, with the resolvers' values, must fit the type (checked at compile time): a default the
// schema applies and the type does not know of, or one the type promises and the schema does not apply, fails tsc.
// (The schema's arrays are mutable, the options' readonly: compared read-only, three levels down.)
type ReadOnly<T, Depth extends 0[] = []> = Depth['length'] extends 3
  ? T
  : T extends (...args: never[]) => unknown
    ? T
    : T extends readonly (infer U)[]
      ? readonly U[]
      : T extends object
        ? { readonly [K in keyof T]: ReadOnly<T[K], [...Depth, 0]> }
        : T;
type SchemaResolved = ReadOnly<z.output<typeof trainerOptionsSchema>> & { readonly budgets: RolloutBudgets; readonly runName: string };
const outputFits: [SchemaResolved] extends [ResolvedTrainerOptions] ? ([ResolvedTrainerOptions] extends [SchemaResolved] ? true : false) : false = true;
void outputFits;

/**
 * Validates and resolves Trainer options before any work starts.
 * @throws ConfigError listing every problem with its dotted path, e.g. `loss.clipHigh: expected a ratio bound > 1, got 0.28`.
 * @throws ZodVersionError when the zod agentrl resolves (a peer dependency) is not 4.x.
 */
export function resolveTrainerOptions(opts: unknown): ResolvedTrainerOptions {
  assertZodPeer();
  const parsed = trainerOptionsSchema.safeParse(opts);
  // Dataset rows are checked outside the schema (zod skips refinements once another key failed), so that their
  // problems are reported in the same pass, each with its 1-based row number, duplicates included.
  const raw = (typeof opts === 'object' && opts !== null ? opts : {}) as { dataset?: unknown; eval?: { dataset?: unknown }; env?: { tools?: unknown } };
  const rowIssues = [
    // A custom environment's tools pass the rules defineTool's do (names, uniqueness, size) before the first rollout.
    ...(Array.isArray(raw.env?.tools) ? toolDefinitionIssues(raw.env.tools, 'env.tools') : []),
    ...(Array.isArray(raw.dataset) ? exampleIssues(raw.dataset, 'dataset') : []),
    ...(Array.isArray(raw.eval?.dataset) ? exampleIssues(raw.eval.dataset, 'eval.dataset') : []),
  ];
  if (!parsed.success || rowIssues.length > 0) {
    const issues = parsed.success
      ? []
      : configIssuesFromZod(parsed.error.issues, opts, (path) => schemaKeysAt(trainerOptionsSchema, path), schemaKeyPaths(trainerOptionsSchema));
    throw new ConfigError('Trainer options', [...issues, ...rowIssues]);
  }
  const o = parsed.data;
  return { ...o, runName: o.runName ?? defaultRunName(o), budgets: resolveBudgets(o.budgets, o.backend.maxContextTokens) };
}

/**
 * The per-trajectory budgets of a run: the given ones as they are (one over the context is capped with a
 * `budget_capped` warning when `train()` starts), each unset one {@link TRAINER_DEFAULTS}`.budgets` fitted to the
 * backend's context — `maxTrajectoryTokens` at most `contextTokens`, `maxTurnTokens` at most that,
 * `maxToolResponseTokens` at most a quarter of the context (at least 1).
 */
export function resolveBudgets(given: Partial<RolloutBudgets>, contextTokens: number): RolloutBudgets {
  const b = { ...TRAINER_DEFAULTS.budgets, ...stripUndefined(given) };
  if (given.maxTrajectoryTokens === undefined) b.maxTrajectoryTokens = Math.min(b.maxTrajectoryTokens, contextTokens);
  if (given.maxTurnTokens === undefined) b.maxTurnTokens = Math.min(b.maxTurnTokens, b.maxTrajectoryTokens);
  if (given.maxToolResponseTokens === undefined) b.maxToolResponseTokens = Math.min(b.maxToolResponseTokens, Math.max(1, Math.floor(contextTokens / 4)));
  return b;
}

/** The run's label when `runName` is not set: environment, loss and batch shape, e.g. `code-interpreter · ppo · 8×8 · lr 4e-5`. */
export function defaultRunName(o: Pick<z.output<typeof trainerOptionsSchema>, 'env' | 'loss' | 'groupSize' | 'questionsPerBatch' | 'optimizer'>): string {
  const env = typeof o.env.name === 'string' && o.env.name !== '' ? o.env.name : 'env';
  return `${env} · ${o.loss.kind} · ${o.questionsPerBatch}×${o.groupSize} · lr ${o.optimizer.learningRate.toExponential().replace('e+', 'e')}`;
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
