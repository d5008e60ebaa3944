import type { SamplingSupport, TrainingBackend } from '../backend/types.js';
import type { ConfigIssue } from '../errors/config-error.js';
import type { LossConfig } from '../types/loss-config.js';
import { lossDefinition } from '../loss/index.js';

const NONE: SamplingSupport = { temperature: false, truncation: 'unsupported' };

/**
 * Problems with sampling settings the backend's learner cannot reproduce, so that the PPO ratio
 * `exp(logp_θ − logp_sample)` would be biased on on-policy data (e.g. sampler at T = 1.5 reporting
 * `log softmax(logits / 1.5)` while the learner computes `log softmax(logits)`). Empty when consistent.
 * Temperature 0 (greedy) is reported at T = 1 by the sampler and needs no support.
 */
/**
 * Problems with `entropyBonus` on this backend and loss: the bonus needs the full next-token distribution
 * ({@link TrainingBackend.learnerEntropy}) and a loss the backend runs in its own kernel (a custom loss's backward is a
 * weighted cross-entropy on the sampled tokens, which cannot carry the entropy's gradient). Empty when it can run.
 */
export function entropyBonusIssues(
  backend: TrainingBackend,
  o: { entropyBonus?: { coef: number } | undefined; loss: LossConfig; kl?: { placement: 'advantage' | 'loss' } | undefined },
): ConfigIssue[] {
  if (o.entropyBonus === undefined || o.entropyBonus.coef === 0) return [];
  if (backend.learnerEntropy !== true) {
    return [
      {
        path: 'entropyBonus',
        message: `backend '${backend.name}' returns logprobs of the sampled tokens only, not the full next-token distribution (its learnerEntropy is not true), so it cannot compute the entropy bonus; use the embedded engine (localBackend) or drop entropyBonus`,
      },
    ];
  }
  if (lossDefinition(o.loss).native === undefined) {
    return [
      {
        path: 'entropyBonus',
        message: `loss '${o.loss.kind}' runs as a custom loss (a weighted cross-entropy backward on the sampled tokens), which cannot carry the entropy's gradient; use a native kind (ppo, importance_sampling, cispo, cross_entropy)`,
      },
    ];
  }
  if (o.kl?.placement === 'loss') {
    return [
      {
        path: 'entropyBonus',
        message: "kl.placement 'loss' runs the loss as a custom loss, which cannot carry the entropy's gradient; use kl.placement 'advantage'",
      },
    ];
  }
  return [];
}

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
