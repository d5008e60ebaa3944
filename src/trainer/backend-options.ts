import type { BackendOptionFacts, OptionVerdict, TrainingBackend } from '../backend/types.js';
import type { ConfigIssue } from '../errors/config-error.js';
import type { ResolvedTrainerOptions } from './resolved-options.js';

/** The resolved options the backend's engine is checked against ({@link TrainingBackend.checkOptions}). */
export function backendOptionFacts(o: ResolvedTrainerOptions): BackendOptionFacts {
  const { learningRate, beta1, beta2, eps, weightDecay, gradClipNorm } = o.optimizer;
  return {
    loss: o.loss,
    optimizer: { learningRate, beta1, beta2, eps, weightDecay, gradClipNorm },
    ...(o.kl ? { kl: { reference: o.kl.reference === 'base' ? 'base' : 'client', placement: o.kl.placement } } : {}),
    rolloutCorrection: o.rolloutCorrection !== undefined,
    distill: o.distill !== undefined,
    maxStaleness: o.async.maxStaleness,
    resume: o.resume !== undefined,
  };
}

/** `ConfigError` issues for the options the backend refused: path = the option, message = `backend 'name': why`. */
export function refusedOptionIssues(backend: TrainingBackend, verdicts: readonly OptionVerdict[]): ConfigIssue[] {
  return verdicts.filter((v) => v.outcome === 'refused').map((v) => ({ path: v.option, message: `refused by backend '${backend.name}': ${v.reason}` }));
}
