import type { SamplingSupport, TrainingBackend } from '../backend/types.js';
import type { ConfigIssue } from '../errors/config-error.js';

const NONE: SamplingSupport = { temperature: false, truncation: 'unsupported' };

/**
 * Problems with sampling settings the backend's learner cannot reproduce, so that the PPO ratio
 * `exp(logp_θ − logp_sample)` would be biased on on-policy data (e.g. sampler at T = 1.5 reporting
 * `log softmax(logits / 1.5)` while the learner computes `log softmax(logits)`). Empty when consistent.
 * Temperature 0 (greedy) is reported at T = 1 by the sampler and needs no support.
 */
export function samplingConsistencyIssues(backend: TrainingBackend, s: { temperature: number; topP: number; topK?: number | undefined }): ConfigIssue[] {
  const support = backend.samplingSupport ?? NONE;
  const issues: ConfigIssue[] = [];
  if (s.temperature !== 1 && s.temperature !== 0 && !support.temperature) {
    issues.push({
      path: 'sampling.temperature',
      message: `backend '${backend.name}' cannot compute learner logprobs at temperature ${s.temperature} (its samplingSupport.temperature is false): the PPO ratio would compare different distributions; use 1`,
    });
  }
  const truncated = s.topP < 1 || (s.topK ?? 0) > 0;
  if (truncated && support.truncation === 'unsupported') {
    issues.push({
      path: s.topP < 1 ? 'sampling.topP' : 'sampling.topK',
      message: `backend '${backend.name}' cannot make top-p/top-k truncated samples consistent with its learner (samplingSupport.truncation is 'unsupported'); use topP 1 and no topK`,
    });
  }
  return issues;
}
