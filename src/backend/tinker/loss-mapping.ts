import type { Datum } from '../../types/datum.js';
import type { LossConfig, NativeLossKind } from '../../types/loss-config.js';
import { BackendInputError, ConfigError } from '../../errors/index.js';
import { LOSSES, lossDefinition, parseLossConfig } from '../../loss/index.js';
import { aggregationCoefficients, validateDatums } from '../local/batching.js';
import type { WireDatum } from './json-wire.js';
import { lossFnConfigOf } from './protocol/loss-fn.js';

/** The protocol's built-in loss functions agentrl maps onto (`loss_fn`). */
export type TinkerLossFn = NativeLossKind;

/** One `forward_backward` call translated to the protocol: loss function, its config and the wire datums. */
export interface TinkerLossPlan {
  readonly lossFn: TinkerLossFn;
  /** `loss_fn_config` (absent for losses without parameters). */
  readonly lossFnConfig?: Readonly<Record<string, number>>;
  readonly datums: readonly WireDatum[];
}

/**
 * Refuses loss options the protocol's losses cannot compute the same way as `localBackend` (any key the kind's
 * registry definition does not list, e.g. a dual-clip constant), before any request is made.
 * @throws ConfigError naming each such option, e.g. `loss.dualClip`.
 */
export function checkLossSupported(loss: LossConfig): LossConfig {
  const raw = loss as unknown as Record<string, unknown>;
  const kind = raw['kind'];
  const def = typeof kind === 'string' && kind in LOSSES ? LOSSES[kind as LossConfig['kind']] : undefined;
  if (def !== undefined) {
    const extra = Object.keys(raw).filter((k) => k !== 'kind' && raw[k] !== undefined && !def.optionKeys.includes(k));
    if (extra.length > 0) {
      throw new ConfigError(
        'tinkerBackend loss',
        extra.map((k) => ({ path: `loss.${k}`, message: `the Tinker protocol's '${String(kind)}' loss has no equivalent of this option` })),
      );
    }
  }
  return parseLossConfig(loss);
}

/** Whether `loss` maps onto one of the protocol's built-in `loss_fn`s (otherwise it runs as a custom loss). */
export function isNativeLoss(loss: LossConfig): boolean {
  return lossDefinition(loss).native !== undefined;
}

/**
 * Translates one `forwardBackward(datums, loss, { weight })` call into the protocol's loss so that the server's
 * plain token **sum** equals `weight ×` agentrl's aggregated loss, exactly (up to float32 rounding), using the kind's
 * registry definition (`native`): with `c_t` the aggregation coefficient of position t (`token-mean`: `m_t / Σm`,
 * `sequence-mean`: `m_t / (n_d·S)`, `token-sum`: `m_t`; for `cross_entropy` times `w_t = weights ?? mask`) and
 * `k = weight`,
 * - kinds linear in the weights (`cross_entropy`): `weights_t = k·c_t` (loss `−Σ lp_t·k·c_t`);
 * - kinds linear in the advantages (`importance_sampling`, `cispo`): `advantages_t = k·c_t·A_t`;
 * - `ppo`: `advantages_t = k·c_t·A_t`, which equals scaling the clipped objective because `min(r·sA, clip(r)·sA)
 *   = s·min(r·A, clip(r)·A)` for `s ≥ 0` — so a negative weight or mask is refused.
 * Masked positions get `advantages = 0` / `weights = 0` and add nothing. This is the reduction the Tinker docs
 * prescribe ("include [other aggregation schemes] in the advantage tensor computation").
 * @throws ConfigError for loss options without an equivalent, or a kind without a native `loss_fn` (those run as
 *   custom losses); BackendInputError for malformed datums (`datums[i].field`), a non-finite weight, or a negative
 *   weight/mask with `ppo`.
 */
export function planForwardBackward(datums: readonly Datum[], rawLoss: LossConfig, weight: number, contextTokens: number): TinkerLossPlan {
  const loss = checkLossSupported(rawLoss);
  const native = lossDefinition(loss).native;
  if (native === undefined) {
    throw new ConfigError('tinkerBackend loss', [
      { path: 'loss.kind', message: `'${loss.kind}' is not a built-in loss_fn; it runs as a custom loss (forward + weighted cross_entropy)` },
    ]);
  }
  if (!Number.isFinite(weight)) throw new BackendInputError('weight', `must be a finite number, got ${weight}`);
  validateDatums(datums, Number.POSITIVE_INFINITY, contextTokens);
  const coefs = aggregationCoefficients(datums, loss);
  if (native.nonNegativeScale) {
    if (weight < 0) throw new BackendInputError('weight', `must be ≥ 0 with the ${loss.kind} loss (the clipped objective is not linear), got ${weight}`);
    datums.forEach((d, i) => {
      if (d.mask.some((m) => m < 0)) throw new BackendInputError(`datums[${i}].mask`, `negative mask values cannot be mapped onto the ${loss.kind} loss`);
    });
  }
  const out: WireDatum[] = datums.map((d, i): WireDatum => {
    const c = coefs[i]!;
    const targetTokens = { dtype: 'int64' as const, data: Array.from(d.targetTokens) };
    if (native.scales === 'weights') {
      return {
        modelInput: Array.from(d.modelInput),
        inputs: { target_tokens: targetTokens, weights: { dtype: 'float32', data: Array.from(c, (x) => x * weight) } },
      };
    }
    return {
      modelInput: Array.from(d.modelInput),
      inputs: {
        target_tokens: targetTokens,
        logprobs: { dtype: 'float32', data: d.logprobs.map((lp, t) => (c[t] === 0 ? 0 : lp)) },
        advantages: { dtype: 'float32', data: d.advantages.map((a, t) => (c[t] === 0 ? 0 : a * c[t]! * weight)) },
      },
    };
  });
  const lossFnConfig = lossFnConfigOf(loss);
  return { lossFn: native.lossFn, ...(lossFnConfig ? { lossFnConfig } : {}), datums: out };
}
