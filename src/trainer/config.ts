import { z } from '../util/zod.js';
import type { MetricsSink } from './metrics-sink.js';
import type { SamplingClient, TrainingBackend } from '../backend/types.js';
import { ADAM_DEFAULTS } from '../backend/adam-defaults.js';
import type { Environment } from '../env/types.js';
import type { GroupReward, Reward } from '../types/reward.js';
import type { Example } from '../types/example.js';
import type { TrainerOptions } from './options.js';
import { lossConfigSchema } from '../loss/index.js';
import { DEFAULT_PREFIX_MISMATCH, PREFIX_MISMATCH_POLICIES } from '../types/prefix-mismatch.js';

const posInt = z.number().int('expected an integer').positive('expected an integer ≥ 1');

const hasMethods =
  <T>(_what: string, methods: string[]) =>
  (v: unknown): v is T =>
    typeof v === 'object' && v !== null && methods.every((m) => typeof (v as Record<string, unknown>)[m] === 'function');

/** The Trainer's option schema (zod 4). Every key takes effect or is rejected. */
export const trainerOptionsSchema = z
  .strictObject({
    backend: z.custom<TrainingBackend>(hasMethods('backend', ['forwardBackward', 'optimStep', 'saveWeightsForSampler', 'renderer']), {
      message: 'expected a TrainingBackend (e.g. localBackend())',
    }),
    env: z.custom<Environment>(hasMethods('env', ['initialMessages', 'step']), { message: 'expected an Environment' }),
    reward: z.custom<Reward>((v) => typeof v === 'function', { message: 'expected a reward function' }),
    loss: lossConfigSchema,
    dataset: z.array(z.custom<Example>(() => true)).min(1, 'expected at least one example'),
    groupSize: posInt.default(8),
    questionsPerBatch: posInt.default(8),
    maxSteps: posInt.default(100),
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
        temperature: z.number().min(0).default(1),
        topP: z.number().gt(0).max(1).default(1),
        topK: z.number().int().min(0).optional(),
      })
      .default({ temperature: 1, topP: 1 }),
    optimizer: z
      .strictObject({
        learningRate: z.number().positive('expected a learning rate > 0'),
        beta1: z.number().min(0).lt(1).default(ADAM_DEFAULTS.beta1),
        beta2: z.number().min(0).lt(1).default(ADAM_DEFAULTS.beta2),
        eps: z.number().positive().default(ADAM_DEFAULTS.eps),
        weightDecay: z.number().min(0).default(ADAM_DEFAULTS.weightDecay),
        gradClipNorm: z.number().min(0).default(ADAM_DEFAULTS.gradClipNorm),
        schedule: z.strictObject({ kind: z.enum(['constant', 'linear', 'cosine']), warmupSteps: z.number().int('expected an integer').min(0, 'expected an integer ≥ 0').optional() }).optional(),
      })
      .default({ ...ADAM_DEFAULTS }),
    advantage: z.strictObject({ normalize: z.enum(['none', 'std', 'rloo']).default('none') }).default({ normalize: 'none' }),
    microBatch: z
      .strictObject({ maxTokens: posInt.default(16 * 512), maxDatums: posInt.default(16) })
      .default({ maxTokens: 16 * 512, maxDatums: 16 }),
    rollout: z
      .strictObject({
        failure: z
          .discriminatedUnion('kind', [
            z.strictObject({ kind: z.literal('drop'), minSurvivors: posInt.optional() }),
            z.strictObject({ kind: z.literal('retry'), maxRetries: z.number().int().min(0), minSurvivors: posInt.optional() }),
            z.strictObject({ kind: z.literal('fail_fast') }),
          ])
          .default({ kind: 'drop' }),
        trajectoryTimeoutMs: z.number().positive().optional(),
        stepTimeoutMs: z.union([z.number().positive(), z.literal(Infinity)], { error: 'expected a positive number of ms (or Infinity)' }).optional(),
        maxConcurrentGroups: posInt.optional(),
        streaming: z.boolean().default(true),
        maxConcurrentTrajectories: posInt.optional(),
      })
      .default({ failure: { kind: 'drop' }, streaming: true }),
    onPrefixMismatch: z.enum(PREFIX_MISMATCH_POLICIES).default(DEFAULT_PREFIX_MISMATCH),
    async: z.strictObject({ maxStaleness: z.number().int('expected an integer').min(0, 'expected an integer ≥ 0').default(0) }).default({ maxStaleness: 0 }),
    groupReward: z.custom<GroupReward>((v) => typeof v === 'function', { message: 'expected a group reward function' }).optional(),
    rewardTimeoutMs: z.number().positive().default(60_000),
    skipDegenerateGroups: z.boolean().default(true),
    seed: z.number().int().min(0).default(0),
    shuffle: z.boolean().default(true),
    logDir: z.string().min(1).optional(),
    checkpointEvery: z.number().int().min(0).default(0),
    checkpointKeepLast: posInt.default(3),
    resume: z.string().min(1).optional(),
    eval: z
      .strictObject({
        dataset: z.array(z.custom<Example>(() => true)).min(1, 'expected at least one example'),
        every: posInt,
        samples: posInt.default(4),
        concurrency: posInt.default(16),
        seed: z.number().int().min(0).optional(),
      })
      .optional(),
    trajectoryLog: z.strictObject({ perStep: z.number().int().min(0).default(4) }).default({ perStep: 4 }),
    progress: z.union([z.boolean(), z.literal('auto')]).default('auto'),
    sinks: z
      .array(z.custom<MetricsSink>((v) => typeof v === 'object' && v !== null && typeof (v as { write?: unknown }).write === 'function', { message: 'expected a MetricsSink (an object with a write(record) method)' }))
      .default([]),
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
        reference: z.union([z.literal('base'), z.custom<SamplingClient>(hasMethods('reference', ['computeLogprobs']), { message: "expected 'base' or a SamplingClient" })]).default('base'),
        estimator: z.enum(['k1', 'k2', 'k3']).default('k1'),
        placement: z.enum(['advantage', 'loss']).default('advantage'),
      })
      .optional(),
    rolloutCorrection: z
      .strictObject({ level: z.enum(['token', 'sequence']), mode: z.enum(['truncate', 'mask']), cap: z.number().gt(1, 'expected a cap > 1') })
      .optional(),
    dynamicSampling: z.strictObject({ maxAttempts: posInt, metric: z.enum(['correct', 'reward']).default('correct') }).optional(),
    overlong: z
      .union([
        z.strictObject({ filter: z.literal(true) }),
        z.strictObject({ bufferTokens: posInt, penalty: z.number().min(0, 'expected a penalty ≥ 0'), maxResponseTokens: posInt.optional(), filter: z.literal(false).optional() }),
      ], { error: 'expected { bufferTokens, penalty } or { filter: true }' })
      .optional(),
    updatesPerBatch: z.strictObject({ minibatches: posInt.default(1), epochs: posInt.default(1) }).default({ minibatches: 1, epochs: 1 }),
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
    const minSurvivors = o.rollout.failure.kind === 'fail_fast' ? undefined : o.rollout.failure.minSurvivors;
    if (minSurvivors !== undefined && minSurvivors > o.groupSize) {
      ctx.addIssue({ code: 'custom', path: ['rollout', 'failure', 'minSurvivors'], message: `${minSurvivors} exceeds groupSize ${o.groupSize}: every group would be dropped` });
    }
    if (o.async.maxStaleness > 0 && !o.rollout.streaming) {
      ctx.addIssue({ code: 'custom', path: ['async', 'maxStaleness'], message: `maxStaleness ${o.async.maxStaleness} overlaps rollouts with learning, which needs rollout.streaming: true` });
    }
    const tempered = o.sampling.temperature !== 1 && o.sampling.temperature !== 0;
    for (const key of ['kl', 'distill'] as const) {
      if (o[key] !== undefined && tempered) {
        ctx.addIssue({ code: 'custom', path: [key], message: `reference/teacher logprobs come from computeLogprobs at temperature 1, but rollouts sample at temperature ${o.sampling.temperature}: the per-token KL would compare different distributions` });
      }
    }
    if (o.overlong !== undefined && 'bufferTokens' in o.overlong) {
      const { bufferTokens, maxResponseTokens } = o.overlong;
      if (maxResponseTokens !== undefined && bufferTokens >= maxResponseTokens) {
        ctx.addIssue({ code: 'custom', path: ['overlong', 'bufferTokens'], message: `${bufferTokens} is not below overlong.maxResponseTokens ${maxResponseTokens}` });
      } else if (maxResponseTokens === undefined && o.budgets.maxTrajectoryTokens !== undefined && bufferTokens >= o.budgets.maxTrajectoryTokens) {
        ctx.addIssue({ code: 'custom', path: ['overlong', 'bufferTokens'], message: `${bufferTokens} is not below budgets.maxTrajectoryTokens ${o.budgets.maxTrajectoryTokens} (the default overlong.maxResponseTokens)` });
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

export type { TrainerOptions } from './options.js';

// The documented interface and the schema must describe the same keys (checked at compile time).
type SchemaKeys = keyof z.input<typeof trainerOptionsSchema>;
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const keysMatch: Same<SchemaKeys, keyof TrainerOptions> = true;
void keysMatch;
