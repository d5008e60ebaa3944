import type { LossConfig, NativeLossKind } from '../../../types/loss-config.js';
import { BackendInputError } from '../../../errors/index.js';
import { lossDefinition } from '../../../loss/registry.js';

/** The `loss_fn`s of the Tinker protocol that agentrl sends and `agentrl serve` computes (`dro` is not one). */
export const TINKER_LOSS_FNS = ['cross_entropy', 'importance_sampling', 'ppo', 'cispo'] as const satisfies readonly NativeLossKind[];

/** `loss_fn_config` keys of each `loss_fn` (Tinker docs, "Loss functions"). */
export const LOSS_FN_CONFIG_KEYS: Readonly<Record<NativeLossKind, readonly string[]>> = {
  cross_entropy: [],
  importance_sampling: [],
  ppo: ['clip_low_threshold', 'clip_high_threshold'],
  cispo: ['clip_low_threshold', 'clip_high_threshold'],
};

/**
 * Clip thresholds a server uses when `loss_fn_config` leaves them out: `ppo` {0.8, 1.2}, `cispo` {0, 4} (tinker-cookbook
 * `docs/losses.mdx` and `tutorials/202_loss_functions.py`).
 */
export const TINKER_CLIP_DEFAULTS = { ppo: [0.8, 1.2], cispo: [0, 4] } as const;

/**
 * `loss_fn_config` of a native loss kind: its ratio bounds as `clip_low_threshold` / `clip_high_threshold` (absolute
 * ratios, as agentrl's `clipLow` / `clipHigh`); `undefined` for kinds without parameters.
 */
export function lossFnConfigOf(loss: LossConfig): Readonly<Record<string, number>> | undefined {
  const bounds = lossDefinition(loss).native?.bounds?.(loss as never);
  return bounds ? { clip_low_threshold: bounds[0], clip_high_threshold: bounds[1] } : undefined;
}

/**
 * A received `loss_fn` + `loss_fn_config` → `LossConfig` with `token-sum` aggregation (Tinker's reduction: a plain
 * sum of per-token losses), clip defaults from {@link TINKER_CLIP_DEFAULTS}. The inverse of {@link lossFnConfigOf}.
 * @throws BackendInputError for an unknown loss or config key.
 */
export function lossConfigFromWire(lossFn: string, config: Readonly<Record<string, number>> | null | undefined): LossConfig {
  const c = config ?? {};
  if (!(TINKER_LOSS_FNS as readonly string[]).includes(lossFn)) {
    throw new BackendInputError('loss_fn', `'${lossFn}' is not served; use one of ${TINKER_LOSS_FNS.join(', ')}`);
  }
  const kind = lossFn as NativeLossKind;
  const allowed = LOSS_FN_CONFIG_KEYS[kind];
  for (const k of Object.keys(c)) {
    if (!allowed.includes(k)) throw new BackendInputError(`loss_fn_config.${k}`, `not a parameter of loss '${lossFn}'`);
  }
  switch (kind) {
    case 'cross_entropy':
    case 'importance_sampling':
      return { kind, aggregation: 'token-sum' };
    case 'ppo':
    case 'cispo': {
      const [lo, hi] = TINKER_CLIP_DEFAULTS[kind];
      return { kind, clipLow: c['clip_low_threshold'] ?? lo, clipHigh: c['clip_high_threshold'] ?? hi, aggregation: 'token-sum' };
    }
  }
}
