import type { AdamParams } from './types.js';

/**
 * agentrl's Adam defaults, the one copy used by the Trainer's `optimizer` option, `localBackend`'s AdamW and the
 * `adam_params` `tinkerBackend` sends: β1 0.9, β2 0.95, ε 1e-8, no weight decay, global-norm clip 1 (learning rate
 * 4e-5 when the Trainer's `optimizer` is omitted).
 */
export const ADAM_DEFAULTS: Readonly<Required<AdamParams>> = Object.freeze({
  learningRate: 4e-5,
  beta1: 0.9,
  beta2: 0.95,
  eps: 1e-8,
  weightDecay: 0,
  gradClipNorm: 1,
});

/** `params` with every absent field set to {@link ADAM_DEFAULTS}. */
export function withAdamDefaults(params: AdamParams): Required<AdamParams> {
  return {
    learningRate: params.learningRate,
    beta1: params.beta1 ?? ADAM_DEFAULTS.beta1,
    beta2: params.beta2 ?? ADAM_DEFAULTS.beta2,
    eps: params.eps ?? ADAM_DEFAULTS.eps,
    weightDecay: params.weightDecay ?? ADAM_DEFAULTS.weightDecay,
    gradClipNorm: params.gradClipNorm ?? ADAM_DEFAULTS.gradClipNorm,
  };
}
