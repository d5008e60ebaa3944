/**
 * `asample` options that `agentrl serve` answers only at their defaults. Each one asks for something in the
 * response that the embedded sampler does not produce, or whose response encoding is not public, so a request that
 * sets one is refused with 400 naming it rather than answered without it.
 *
 * Sources (the official SDK's `src/tinker/types/sample_request.py`, SDK ≥ 0.26; docs "StableReinforce"):
 * - `topk_prompt_logprobs` (SDK ≥ 0.16): top-k prompt logprobs; the sampler computes only the sampled token's.
 * - `topk_sample_logprobs` (≥ 0.26): top-k logprobs per sampled token (`SampledSequence.topk_logprobs`).
 * - `target_prompt_logprobs` (≥ 0.26): prompt logprobs of chosen token ids (`SampleResponse.target_prompt_logprobs`).
 * - `record_stability_info` (≥ 0.26): record each sequence for the `stable_reinforce` loss and name it with
 *   `SampledSequence.sequence_id`. Neither that field's wire encoding nor the loss's formula is public.
 */
import type { z } from 'zod';
import type { sampleSchema } from './request-schemas.js';
import { ServeRequestError } from './errors.js';

/**
 * @throws ServeRequestError (400) naming the first option set away from its default.
 */
export function checkSampleOptions(body: z.infer<typeof sampleSchema>): void {
  const refuse = (field: string, why: string) => {
    throw new ServeRequestError(400, `${field}: ${why}; agentrl serve answers this option only at its default`);
  };
  if ((body.topk_prompt_logprobs ?? 0) > 0)
    refuse('topk_prompt_logprobs', `${body.topk_prompt_logprobs} asks for top-k prompt logprobs, which the embedded sampler does not compute`);
  if ((body.topk_sample_logprobs ?? 0) > 0)
    refuse('topk_sample_logprobs', `${body.topk_sample_logprobs} asks for top-k logprobs of each sampled token, which the embedded sampler does not compute`);
  if (body.target_prompt_logprobs != null) refuse('target_prompt_logprobs', 'prompt logprobs of chosen token ids are not computed here');
  if (body.record_stability_info === true) {
    refuse(
      'record_stability_info',
      'sequences are not recorded for stable_reinforce (its formula and the encoding of SampledSequence.sequence_id are not public)',
    );
  }
}
