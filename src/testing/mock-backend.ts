import type { AdamParams, ForwardBackwardResult, SamplingClient, TrainingBackend } from '../backend/types.js';
import type { Renderer } from '../chat/types.js';
import type { Datum } from '../types/datum.js';
import type { LossConfig } from '../types/loss-config.js';
import { referenceLoss } from '../loss/index.js';
import { checkBackendDatums } from '../backend/check-datums.js';
import { checkOptions, objectValue, optionKeys } from '../util/check-options.js';

const MOCK_BACKEND_OPTIONS = optionKeys<Parameters<typeof mockBackend>[0]>({ maxContextTokens: true, renderer: objectValue, sampler: objectValue });

/** A recorded `forwardBackward` call of {@link mockBackend}. */
export interface RecordedForwardBackward {
  /** The datums of the call, as passed. */
  readonly datums: readonly Datum[];
  /** The loss configuration of the call. */
  readonly loss: LossConfig;
  /** The call's weight in the step's mean (the `weight` option; 1 when not given). */
  readonly weight: number;
}

/**
 * A {@link TrainingBackend} without a model, for testing environments, rewards and the Trainer loop:
 * sampling is delegated to `sampler` (e.g. `scriptedSampler`), `forwardBackward` scores the datums with
 * the reference losses at ratio 1 (learner logprobs = sampling logprobs) and records every call,
 * `optimStep` counts steps. Nothing is learned.
 */
export function mockBackend(opts: { renderer: Renderer; sampler: SamplingClient; maxContextTokens?: number }): TrainingBackend & {
  readonly forwardBackwardCalls: RecordedForwardBackward[];
  readonly optimSteps: AdamParams[];
  readonly savedStates: string[];
} {
  checkOptions('mockBackend options', MOCK_BACKEND_OPTIONS, opts, { signature: 'mockBackend({ renderer, sampler, maxContextTokens? })' });
  const forwardBackwardCalls: RecordedForwardBackward[] = [];
  const optimSteps: AdamParams[] = [];
  const savedStates: string[] = [];
  return {
    specificationVersion: 'v1',
    name: 'mock',
    maxContextTokens: opts.maxContextTokens ?? 1 << 20,
    // Learner logprobs are the sampling logprobs themselves, whatever the settings.
    samplingSupport: { temperature: true, truncation: 'full-vocabulary' },
    forwardBackwardCalls,
    optimSteps,
    savedStates,
    async forwardBackward(datums, loss, o): Promise<ForwardBackwardResult> {
      checkBackendDatums(datums, { contextTokens: opts.maxContextTokens ?? 1 << 20 });
      forwardBackwardCalls.push({ datums, loss, weight: o?.weight ?? 1 });
      const lp = datums.map((d) => [...d.logprobs]);
      const r = referenceLoss(datums, lp, loss);
      return { logprobs: lp, metrics: { loss: r.loss, clip_frac: r.clipFrac, kl_sample_train: r.klSampleTrain, tokens: r.tokens } };
    },
    async optimStep(params) {
      optimSteps.push(params);
      return { metrics: { grad_norm: 0, learning_rate: params.learningRate } };
    },
    async saveWeightsForSampler() {
      return opts.sampler;
    },
    async saveState(path) {
      savedStates.push(path);
    },
    async loadState() {},
    computeLogprobs: (tokens) => opts.sampler.computeLogprobs(tokens),
    renderer: async () => opts.renderer,
    async close() {},
  };
}
