import { z } from '../util/zod.js';
import type { MetricsSink } from './metrics-sink.js';
import type { SamplingClient, TrainingBackend } from '../backend/types.js';
import type { Environment } from '../env/types.js';
import type { GroupReward, Reward } from '../types/reward.js';
import type { Example } from '../types/example.js';
import { TRAINER_DEFAULTS as D, type TrainerOptions } from './options.js';
import { lossConfigSchema } from '../loss/index.js';
import { PREFIX_MISMATCH_POLICIES } from '../types/prefix-mismatch.js';
import { minSurvivorsProblem } from '../rollout/failure-strategy.js';

const posInt = z.number().int('expected an integer').positive('expected an integer ≥ 1');

const hasMethods =
  <T>(_what: string, methods: string[]) =>
  (v: unknown): v is T =>
    typeof v === 'object' && v !== null && methods.every((m) => typeof (v as Record<string, unknown>)[m] === 'function');

/**
 * The Trainer's option schema (zod 4): the keys of {@link TrainerOptions} (checked at compile time), each default taken
 * from {@link TRAINER_DEFAULTS}. Every key takes effect or is rejected.
 */
export const trainerOptionsSchema = z
  .strictObject({
    backend: z.custom<TrainingBackend>(hasMethods('backend', ['forwardBackward', 'optimStep', 'saveWeightsForSampler', 'renderer']), {
      message: 'expected a TrainingBackend (e.g. localBackend())',
    }),
    env: z.custom<Environment>(hasMethods('env', ['initialMessages', 'step']), { message: 'expected an Environment' }),
    reward: z.custom<Reward>((v) => typeof v === 'function', { message: 'expected a reward function' }),
    loss: lossConfigSchema,
    dataset: z.array(z.custom<Example>(() => true)).min(1, 'expected at least one example'),
    groupSize: posInt.default(D.groupSize),
    questionsPerBatch: posInt.default(D.questionsPerBatch),
    maxSteps: posInt.default(D.maxSteps),
    budgets: z
      .strictObject({
        maxToolCalls: z.number().int().min(0).optional(),
        maxTurns: posInt.optional(),
        maxTrajectoryTokens: posInt.optional(),
        maxTurnTokens: posInt.optional(),
        maxToolResponseTokens: posInt.optional(),
      })
      .default({}),
    sampling: z
      .strictObject({
        temperature: z.number().min(0).default(D.sampling.temperature),
        topP: z.number().gt(0).max(1).default(D.sampling.topP),
        topK: z.number().int().min(0).optional(),
      })
      .prefault({}),
    optimizer: z
      .strictObject({
        learningRate: z.number().positive('expected a learning rate > 0'),
        beta1: z.number().min(0).lt(1).default(D.optimizer.beta1),
        beta2: z.number().min(0).lt(1).default(D.optimizer.beta2),
        eps: z.number().positive().default(D.optimizer.eps),
        weightDecay: z.number().min(0).default(D.optimizer.weightDecay),
        gradClipNorm: z.number().min(0).default(D.optimizer.gradClipNorm),
        schedule: z
          .strictObject({
            kind: z.enum(['constant', 'linear', 'cosine']),
            warmupSteps: z.number().int('expected an integer').min(0, 'expected an integer ≥ 0').optional(),
          })
          .optional(),
      })
      .default(D.optimizer),
    advantage: z.strictObject({ normalize: z.enum(['none', 'std', 'rloo']).default(D.advantage.normalize) }).prefault({}),
    microBatch: z.strictObject({ maxTokens: posInt.default(D.microBatch.maxTokens), maxDatums: posInt.default(D.microBatch.maxDatums) }).prefault({}),
    rollout: z
      .strictObject({
        failure: z
          .discriminatedUnion('kind', [
            z.strictObject({ kind: z.literal('drop'), minSurvivors: posInt.optional() }),
            z.strictObject({ kind: z.literal('retry'), maxRetries: z.number().int().min(0), minSurvivors: posInt.optional() }),
            z.strictObject({ kind: z.literal('fail_fast') }),
          ])
          .default(D.rollout.failure),
        trajectoryTimeoutMs: z.number().positive().optional(),
        stepTimeoutMs: z.union([z.number().positive(), z.literal(Infinity)], { error: 'expected a positive number of ms (or Infinity)' }).optional(),
        maxConcurrentGroups: posInt.optional(),
        streaming: z.boolean().default(D.rollout.streaming),
        maxConcurrentTrajectories: posInt.optional(),
      })
      .prefault({}),
    onPrefixMismatch: z.enum(PREFIX_MISMATCH_POLICIES).default(D.onPrefixMismatch),
    async: z.strictObject({ maxStaleness: z.number().int('expected an integer').min(0, 'expected an integer ≥ 0').default(D.async.maxStaleness) }).prefault({}),
    groupReward: z.custom<GroupReward>((v) => typeof v === 'function', { message: 'expected a group reward function' }).optional(),
    rewardTimeoutMs: z.number().positive().default(D.rewardTimeoutMs),
    skipDegenerateGroups: z.boolean().default(D.skipDegenerateGroups),
    seed: z.number().int().min(0).default(D.seed),
    shuffle: z.boolean().default(D.shuffle),
    logDir: z.string().min(1).optional(),
    checkpointEvery: z.number().int().min(0).default(D.checkpointEvery),
    checkpointKeepLast: posInt.default(D.checkpointKeepLast),
    resume: z.string().min(1).optional(),
    eval: z
      .strictObject({
        dataset: z.array(z.custom<Example>(() => true)).min(1, 'expected at least one example'),
        every: posInt,
        samples: posInt.default(D.eval.samples),
        concurrency: posInt.default(D.eval.concurrency),
        seed: z.number().int().min(0).optional(),
      })
      .optional(),
    trajectoryLog: z.strictObject({ perStep: z.number().int().min(0).default(D.trajectoryLog.perStep) }).prefault({}),
    progress: z.union([z.boolean(), z.literal('auto')]).default(D.progress),
    sinks: z
      .array(
        z.custom<MetricsSink>((v) => typeof v === 'object' && v !== null && typeof (v as { write?: unknown }).write === 'function', {
          message: 'expected a MetricsSink (an object with a write(record) method)',
        }),
      )
      .default(() => [...D.sinks]),
    sinkLimits: z
      .strictObject({
        callTimeoutMs: z.number().positive('expected a positive number of ms').optional(),
        maxQueuedCalls: z.number().int().positive('expected a positive integer').optional(),
        closeTimeoutMs: z.number().positive('expected a positive number of ms').optional(),
      })
      .optional(),
    templateKwargs: z.record(z.string(), z.unknown()).optional(),
    kl: z
      .strictObject({
        coef: z.number().min(0, 'expected a coefficient ≥ 0'),
        reference: z
          .union([
            z.literal('base'),
            z.custom<SamplingClient>(hasMethods('reference', ['computeLogprobs']), { message: "expected 'base' or a SamplingClient" }),
          ])
          .default(D.kl.reference),
        estimator: z.enum(['k1', 'k2', 'k3']).default(D.kl.estimator),
        placement: z.enum(['advantage', 'loss']).default(D.kl.placement),
      })
      .optional(),
    rolloutCorrection: z
      .strictObject({ level: z.enum(['token', 'sequence']), mode: z.enum(['truncate', 'mask']), cap: z.number().gt(1, 'expected a cap > 1') })
      .optional(),
    dynamicSampling: z.strictObject({ maxAttempts: posInt, metric: z.enum(['correct', 'reward']).default(D.dynamicSampling.metric) }).optional(),
    overlong: z
      .union(
        [
          z.strictObject({ filter: z.literal(true) }),
          z.strictObject({
            bufferTokens: posInt,
            penalty: z.number().min(0, 'expected a penalty ≥ 0'),
            maxResponseTokens: posInt.optional(),
            filter: z.literal(false).optional(),
          }),
        ],
        { error: 'expected { bufferTokens, penalty } or { filter: true }' },
      )
      .optional(),
    updatesPerBatch: z
      .strictObject({ minibatches: posInt.default(D.updatesPerBatch.minibatches), epochs: posInt.default(D.updatesPerBatch.epochs) })
      .prefault({}),
    distill: z
      .strictObject({
        teacher: z.custom<SamplingClient>(hasMethods('teacher', ['computeLogprobs']), { message: 'expected a SamplingClient (computeLogprobs)' }),
        coef: z.number().positive('expected a coefficient > 0'),
      })
      .optional(),
    entropyBonus: z.strictObject({ coef: z.number().min(0, 'expected a coefficient ≥ 0') }).optional(),
    runName: z.string().trim().min(1, 'expected a non-empty name').max(120, 'expected at most 120 characters').optional(),
  })
  .superRefine((o, ctx) => {
    if (o.checkpointEvery > 0 && !o.logDir) ctx.addIssue({ code: 'custom', path: ['checkpointEvery'], message: 'checkpoints need logDir' });
    if (o.resume === 'latest' && !o.logDir) ctx.addIssue({ code: 'custom', path: ['resume'], message: "'latest' resumes from logDir/checkpoints: set logDir" });
    const survivorsProblem = minSurvivorsProblem(o.rollout.failure, o.groupSize);
    if (survivorsProblem) ctx.addIssue({ code: 'custom', path: ['rollout', 'failure', 'minSurvivors'], message: survivorsProblem });
    if (o.async.maxStaleness > 0 && !o.rollout.streaming) {
      ctx.addIssue({
        code: 'custom',
        path: ['async', 'maxStaleness'],
        message: `maxStaleness ${o.async.maxStaleness} overlaps rollouts with learning, which needs rollout.streaming: true`,
      });
    }
    const tempered = o.sampling.temperature !== 1 && o.sampling.temperature !== 0;
    for (const key of ['kl', 'distill'] as const) {
      if (o[key] !== undefined && tempered) {
        ctx.addIssue({
          code: 'custom',
          path: [key],
          message: `reference/teacher logprobs come from computeLogprobs at temperature 1, but rollouts sample at temperature ${o.sampling.temperature}: the per-token KL would compare different distributions`,
        });
      }
    }
    if (o.overlong !== undefined && 'bufferTokens' in o.overlong) {
      const { bufferTokens, maxResponseTokens } = o.overlong;
      if (maxResponseTokens !== undefined && bufferTokens >= maxResponseTokens) {
        ctx.addIssue({
          code: 'custom',
          path: ['overlong', 'bufferTokens'],
          message: `${bufferTokens} is not below overlong.maxResponseTokens ${maxResponseTokens}`,
        });
      } else if (maxResponseTokens === undefined && o.budgets.maxTrajectoryTokens !== undefined && bufferTokens >= o.budgets.maxTrajectoryTokens) {
        ctx.addIssue({
          code: 'custom',
          path: ['overlong', 'bufferTokens'],
          message: `${bufferTokens} is not below budgets.maxTrajectoryTokens ${o.budgets.maxTrajectoryTokens} (the default overlong.maxResponseTokens)`,
        });
      }
    }
    if (o.groupSize === 1) {
      ctx.addIssue({
        code: 'custom',
        path: ['groupSize'],
        message: `groupSize 1 can never train: advantages are group-centred (advantage.normalize '${o.advantage.normalize}' subtracts the group's mean reward), so a group of one always has advantage 0; use groupSize ≥ 2`,
      });
    }
  });

// The interface and the schema name the same options, nested ones included (checked at compile time): a key declared
// in one and not the other fails tsc. Paths stop three levels down and at functions and arrays.
type OptionPaths<T, Depth extends 0[] = []> = Depth['length'] extends 3
  ? never
  : T extends ((...args: never[]) => unknown) | readonly unknown[]
    ? never
    : T extends object
      ? { [K in keyof T & string]-?: K | `${K}.${OptionPaths<NonNullable<T[K]>, [...Depth, 0]>}` }[keyof T & string]
      : never;
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const pathsMatch: Same<OptionPaths<z.input<typeof trainerOptionsSchema>>, OptionPaths<TrainerOptions>> = true;
void pathsMatch;
