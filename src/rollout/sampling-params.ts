import type { SamplingParams } from '../types/sampling.js';
import type { RolloutContext } from './types.js';

/**
 * The parameters of one sampling call of a rollout: the context's temperature, top-p, top-k and the renderer's stop
 * tokens, with this call's sample count, token limit, seed and signal. The one place a rollout builds them (the
 * group fork and every later turn).
 * @param call.maxTokens - new tokens allowed in this call (the turn budget cut to the room left in the trajectory).
 * @param call.seed - this call's derived seed; omitted for fresh randomness.
 */
export function samplingParams(
  ctx: Pick<RolloutContext, 'sampling' | 'renderer'>,
  call: { readonly numSamples: number; readonly maxTokens: number; readonly seed: number | undefined; readonly signal: AbortSignal },
): SamplingParams {
  return {
    numSamples: call.numSamples,
    maxTokens: call.maxTokens,
    temperature: ctx.sampling?.temperature ?? 1,
    topP: ctx.sampling?.topP ?? 1,
    ...(ctx.sampling?.topK !== undefined ? { topK: ctx.sampling.topK } : {}),
    stop: ctx.renderer.stopTokens,
    ...(call.seed !== undefined ? { seed: call.seed } : {}),
    signal: call.signal,
  };
}
