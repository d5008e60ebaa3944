import type { AdamParams } from '../../types.js';
import { BackendInputError } from '../../../errors/index.js';
import { withAdamDefaults } from '../../adam-defaults.js';

/** Tinker `AdamParams` as sent in `optim_step`'s `adam_params` (snake_case). */
export interface TinkerAdamParams {
  learning_rate: number;
  beta1: number;
  beta2: number;
  eps: number;
  weight_decay: number;
  grad_clip_norm: number;
}

/**
 * What a Tinker server uses for an `adam_params` field the request leaves out: the SDK's `AdamParams` defaults
 * (β1 0.9, β2 0.95, ε 1e-12, no weight decay, no clipping). agentrl's client always sends every field (see
 * {@link adamParamsToWire}), so these matter only to other clients of `agentrl serve`.
 */
export const TINKER_WIRE_ADAM_DEFAULTS = { beta1: 0.9, beta2: 0.95, eps: 1e-12, weightDecay: 0, gradClipNorm: 0 } as const;

/**
 * `adam_params` of `optim_step` with agentrl's defaults filled in (`ADAM_DEFAULTS`: β1 0.9, β2 0.95, eps 1e-8, no
 * weight decay, gradient-norm clip 1, as `localBackend`).
 * @throws BackendInputError for a learning rate that is not a finite number ≥ 0.
 */
export function adamParamsToWire(p: AdamParams): TinkerAdamParams {
  if (!Number.isFinite(p.learningRate) || p.learningRate < 0) {
    throw new BackendInputError('learningRate', `must be a finite number ≥ 0, got ${p.learningRate}`);
  }
  const a = withAdamDefaults(p);
  return { learning_rate: a.learningRate, beta1: a.beta1, beta2: a.beta2, eps: a.eps, weight_decay: a.weightDecay, grad_clip_norm: a.gradClipNorm };
}

/** A received `adam_params` (fields may be absent or null) → agentrl `AdamParams`, with {@link TINKER_WIRE_ADAM_DEFAULTS}. */
export function adamParamsFromWire(a: {
  learning_rate: number;
  beta1?: number | null | undefined;
  beta2?: number | null | undefined;
  eps?: number | null | undefined;
  weight_decay?: number | null | undefined;
  grad_clip_norm?: number | null | undefined;
}): Required<AdamParams> {
  const d = TINKER_WIRE_ADAM_DEFAULTS;
  return {
    learningRate: a.learning_rate,
    beta1: a.beta1 ?? d.beta1,
    beta2: a.beta2 ?? d.beta2,
    eps: a.eps ?? d.eps,
    weightDecay: a.weight_decay ?? d.weightDecay,
    gradClipNorm: a.grad_clip_norm ?? d.gradClipNorm,
  };
}
