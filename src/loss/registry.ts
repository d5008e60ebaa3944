import { z } from '../util/zod.js';
import { DatumShapeError } from '../errors/index.js';
import type { LossConfig, LossKind, LossSequence } from '../types/loss-config.js';
import type { LossDefinition } from './loss-definition.js';
import type { PerTokenLossInputs } from './types.js';
import { crossEntropyLoss, crossEntropySchema } from './kinds/cross-entropy.js';
import { importanceSamplingLoss, importanceSamplingSchema } from './kinds/importance-sampling.js';
import { ppoLoss, ppoSchema } from './kinds/ppo.js';
import { cispoLoss, cispoSchema } from './kinds/cispo.js';
import { gspoLoss, gspoSchema } from './kinds/gspo.js';
import { customLoss, customSchema } from './kinds/custom.js';

/**
 * The loss registry: every kind of {@link LossConfig}, each defined once in `src/loss/kinds/`. The mapped type makes a
 * kind added to `LossConfig` without a definition a compile error. Adding a kind touches three files: its definition
 * in `kinds/`, this registry (here and in {@link lossConfigSchema}), and its member of `LossConfig`.
 */
export const LOSSES: { readonly [K in LossKind]: LossDefinition<Extract<LossConfig, { kind: K }>> } = {
  ppo: ppoLoss,
  importance_sampling: importanceSamplingLoss,
  cispo: cispoLoss,
  cross_entropy: crossEntropyLoss,
  gspo: gspoLoss,
  custom: customLoss,
};

/**
 * Zod schema of {@link LossConfig}: a discriminated union on `kind` of each registered kind's strict schema (unknown
 * keys rejected). No defaults are filled in, so the parsed value is exactly a `LossConfig` (kept in step by a type
 * test). The parsed object is frozen.
 */
export const lossConfigSchema = z
  .discriminatedUnion('kind', [ppoSchema, importanceSamplingSchema, cispoSchema, crossEntropySchema, gspoSchema, customSchema], {
    error: (iss) => {
      if (iss.code !== 'invalid_union') return undefined;
      const kind = (iss.input as { kind?: unknown } | undefined)?.kind;
      const known = Object.keys(LOSSES)
        .map((k) => `'${k}'`)
        .join(' | ');
      const why = typeof kind === 'string' ? UNDEFINED_KINDS[kind] : undefined;
      return why ? `kind '${kind}' is not available: ${why}; use ${known}` : `expected kind ${known}, got ${JSON.stringify(kind)}`;
    },
  })
  .readonly();

/**
 * Loss kinds a Tinker engine names but agentrl cannot define: a kind here must be exact on every backend, the embedded
 * engine included, so its per-token formula has to be public. The reason is given in the `ConfigError`.
 */
const UNDEFINED_KINDS: Readonly<Record<string, string>> = {
  stable_reinforce:
    "hosted Tinker's alpha loss (docs 'StableReinforce') — its objective is not published and it reads sampling-time " +
    'information the server records under a SampledSequence.sequence_id whose wire encoding is not public (docs/backends.md, "Hosted Tinker ≥ 0.26")',
};

/** The definition of `config`'s kind. */
export function lossDefinition<C extends LossConfig>(config: C): LossDefinition<C> {
  return LOSSES[config.kind] as unknown as LossDefinition<C>;
}

/**
 * Checks and completes one sequence's inputs for `config`: the inputs its kind needs must be present with length T
 * (`targetLogprobs.length`); the others default to zeros (`mask` to ones, `weights` to the mask).
 * @throws DatumShapeError naming the missing or mis-sized input.
 */
export function lossSequence(config: LossConfig, inputs: PerTokenLossInputs): LossSequence {
  const def = lossDefinition(config);
  const T = inputs.targetLogprobs.length;
  const pick = (field: Exclude<keyof PerTokenLossInputs, 'targetLogprobs'>, fill: number): readonly number[] => {
    const xs = inputs[field];
    if (xs === undefined) {
      if (def.needs.includes(field)) throw new DatumShapeError(field, 'required by this loss');
      if (field === 'weights' && inputs.mask !== undefined) return pick('mask', fill);
      return new Array<number>(T).fill(fill);
    }
    if (xs.length !== T) throw new DatumShapeError(field, `length ${xs.length} differs from targetLogprobs length ${T}`);
    return xs;
  };
  return {
    targetLogprobs: inputs.targetLogprobs,
    samplingLogprobs: pick('samplingLogprobs', 0),
    advantages: pick('advantages', 0),
    weights: pick('weights', 1),
    mask: pick('mask', 1),
    ...(inputs.referenceLogprobs ? { referenceLogprobs: inputs.referenceLogprobs } : {}),
  };
}
