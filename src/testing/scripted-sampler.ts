import type { SamplingClient } from '../backend/types.js';
import type { Renderer } from '../chat/types.js';
import type { SampledSequence, SamplingParams } from '../types/sampling.js';
import { checkOptions, fnValue, objectValue, optionKeys } from '../util/check-options.js';

const SCRIPTED_SAMPLER_OPTIONS = optionKeys<Parameters<typeof scriptedSampler>[0]>({ logprob: true, renderer: objectValue, script: fnValue });

/** What a scripted model says next: the prompt so far (decoded), the call index, the sample index within the call. */
export type Script = (info: { prompt: string; promptTokens: readonly number[]; call: number; sample: number }) => string;

/**
 * A {@link SamplingClient} that "samples" scripted text, encoded with the real renderer and ended with
 * its first stop token. Logprobs are a constant `logprob` (default −1). Use it to test environments,
 * rewards and the rollout engine without a model.
 * @param opts.script - returns the completion text for each request.
 */
export function scriptedSampler(opts: { renderer: Renderer; script: Script; logprob?: number }): SamplingClient & { readonly calls: number } {
  checkOptions('scriptedSampler options', SCRIPTED_SAMPLER_OPTIONS, opts, { signature: 'scriptedSampler({ renderer, script, logprob? })' });
  let calls = 0;
  const lp = opts.logprob ?? -1;
  return {
    get calls() {
      return calls;
    },
    async sample(promptTokens: readonly number[], params: SamplingParams): Promise<SampledSequence[]> {
      const call = calls++;
      const prompt = opts.renderer.decode(promptTokens);
      const out: SampledSequence[] = [];
      for (let i = 0; i < (params.numSamples ?? 1); i++) {
        const body = opts.renderer.encode(opts.script({ prompt, promptTokens, call, sample: i }));
        let tokens = [...body, ...opts.renderer.stopTokens.slice(0, 1)];
        let stopReason: SampledSequence['stopReason'] = 'stop';
        if (tokens.length > params.maxTokens) {
          tokens = tokens.slice(0, params.maxTokens);
          stopReason = 'length';
        }
        out.push({ tokens, logprobs: tokens.map(() => lp), stopReason });
      }
      return out;
    },
    async computeLogprobs(tokens: readonly number[]) {
      return tokens.map((_, i) => (i === 0 ? null : lp));
    },
  };
}
