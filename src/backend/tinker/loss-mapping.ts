import type { Datum } from '../../types/datum.js';
import type { LossConfig } from '../../types/loss-config.js';
import { BackendInputError, ConfigError } from '../../errors/index.js';
import { CISPO_DEFAULT_CLIP_LOW, parseLossConfig } from '../../loss/index.js';
import { assertNever } from '../../loss/assert-never.js';
import { aggregationCoefficients, validateDatums } from '../local/batching.js';
import type { WireDatum } from './wire.js';

/** The protocol's built-in loss functions agentrl maps onto (`loss_fn`). */
export type TinkerLossFn = 'cross_entropy' | 'importance_sampling' | 'ppo' | 'cispo';

/** One `forward_backward` call translated to the protocol: loss function, its config and the wire datums. */
export interface TinkerLossPlan {
  readonly lossFn: TinkerLossFn;
  /** `loss_fn_config` (absent for losses without parameters). */
  readonly lossFnConfig?: Readonly<Record<string, number>>;
  readonly datums: readonly WireDatum[];
}

/** `LossConfig` keys each loss kind may carry; any other key has no server-side equivalent. */
const KNOWN_KEYS: Record<LossConfig['kind'], readonly string[]> = {
  ppo: ['kind', 'clipLow', 'clipHigh', 'aggregation'],
  importance_sampling: ['kind', 'aggregation'],
  cispo: ['kind', 'clipLow', 'clipHigh', 'aggregation'],
  cross_entropy: ['kind', 'aggregation'],
};

/**
 * Refuses loss options the protocol's losses cannot compute the same way as `localBackend` (for example a dual-clip
 * constant or any option added to `LossConfig` later), before any request is made.
 * @throws ConfigError naming each such option, e.g. `loss.dualClip`.
 */
export function checkLossSupported(loss: LossConfig): LossConfig {
  const raw = loss as unknown as Record<string, unknown>;
  const kind = raw['kind'];
  const known = typeof kind === 'string' && kind in KNOWN_KEYS ? KNOWN_KEYS[kind as LossConfig['kind']] : undefined;
  if (known !== undefined) {
    const extra = Object.keys(raw).filter((k) => raw[k] !== undefined && !known.includes(k));
    if (extra.length > 0) {
      throw new ConfigError(
        'tinkerBackend loss',
        extra.map((k) => ({ path: `loss.${k}`, message: `the Tinker protocol's '${String(kind)}' loss has no equivalent of this option` })),
      );
    }
  }
  return parseLossConfig(loss);
}

/**
 * Translates one `forwardBackward(datums, loss, { weight })` call into the protocol's loss so that the server's
 * plain token **sum** equals `weight ×` agentrl's aggregated loss, exactly (up to float32 rounding):
 * with `c_t` the aggregation coefficient of position t (`token-mean`: `m_t / Σm`, `sequence-mean`:
 * `m_t / (n_d·S)`, `token-sum`: `m_t`; for `cross_entropy` times `w_t = weights ?? mask`) and `k = weight`,
 * - `cross_entropy`: `weights_t = k·c_t` (loss `−Σ lp_t·k·c_t`);
 * - `importance_sampling`, `cispo`: `advantages_t = k·c_t·A_t` (both losses are linear in A);
 * - `ppo`: `advantages_t = k·c_t·A_t`, which equals scaling the clipped objective because `min(r·sA, clip(r)·sA)
 *   = s·min(r·A, clip(r)·A)` for `s ≥ 0` — so a negative weight or mask is refused.
 * Masked positions get `advantages = 0` / `weights = 0` and add nothing. This is the reduction the Tinker docs
 * prescribe ("include [other aggregation schemes] in the advantage tensor computation").
 * @throws ConfigError for loss options without an equivalent; BackendInputError for malformed datums
 *   (`datums[i].field`), a non-finite weight, or a negative weight/mask with `ppo`.
 */
export function planForwardBackward(datums: readonly Datum[], rawLoss: LossConfig, weight: number, contextTokens: number): TinkerLossPlan {
  const loss = checkLossSupported(rawLoss);
  if (!Number.isFinite(weight)) throw new BackendInputError('weight', `must be a finite number, got ${weight}`);
  validateDatums(datums, Number.POSITIVE_INFINITY, contextTokens);
  const coefs = aggregationCoefficients(datums, loss);
  if (loss.kind === 'ppo') {
    if (weight < 0) throw new BackendInputError('weight', `must be ≥ 0 with the ppo loss (the clipped objective is not linear), got ${weight}`);
    datums.forEach((d, i) => {
      if (d.mask.some((m) => m < 0)) throw new BackendInputError(`datums[${i}].mask`, 'negative mask values cannot be mapped onto the ppo loss');
    });
  }
  const out: WireDatum[] = datums.map((d, i): WireDatum => {
    const c = coefs[i]!;
    const targetTokens = { dtype: 'int64' as const, data: Array.from(d.targetTokens) };
    if (loss.kind === 'cross_entropy') {
      return { modelInput: Array.from(d.modelInput), inputs: { target_tokens: targetTokens, weights: { dtype: 'float32', data: Array.from(c, (x) => x * weight) } } };
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
  switch (loss.kind) {
    case 'cross_entropy':
    case 'importance_sampling':
      return { lossFn: loss.kind, datums: out };
    case 'ppo':
      return { lossFn: 'ppo', lossFnConfig: { clip_low_threshold: loss.clipLow, clip_high_threshold: loss.clipHigh }, datums: out };
    case 'cispo':
      return {
        lossFn: 'cispo',
        lossFnConfig: { clip_low_threshold: loss.clipLow ?? CISPO_DEFAULT_CLIP_LOW, clip_high_threshold: loss.clipHigh },
        datums: out,
      };
    default:
      return assertNever(loss);
  }
}
