import type { BackendOptionFacts, OptionVerdict } from '../../types.js';
import { lossDefinition } from '../../../loss/registry.js';
import type { NativeLossKind } from '../../../types/loss-config.js';
import { ADAM_FIELDS, type AdamField, type EngineProfile } from './profiles.js';

/** Client-side default of one `retrieve_future` poll, ms (the SDK's 45 s). */
export const DEFAULT_POLL_MS = 45_000;
/** Margin above an engine's poll hold for the client's per-poll deadline, ms. */
export const POLL_MARGIN_MS = 15_000;

/** The per-poll deadline agentrl uses on `profile` unless `timeouts.pollMs` is set: above the server's hold. */
export function pollMsFor(profile: EngineProfile): number {
  return Math.max(DEFAULT_POLL_MS, profile.pollHold.ms + POLL_MARGIN_MS);
}

/**
 * How a loss kind runs on the engine: natively, or as a custom loss (forward + weighted `cross_entropy`, the
 * tinker-cookbook `forward_backward_custom` pattern) when the kind has no `loss_fn` or the engine lacks it.
 */
export function lossRoute(profile: EngineProfile, native: NativeLossKind | undefined): 'native' | 'custom' {
  return native !== undefined && profile.losses[native].supported ? 'native' : 'custom';
}

const v = (option: string, outcome: OptionVerdict['outcome'], reason: string): OptionVerdict => ({ option, outcome, reason });

/** Why the custom-loss path (forward + signed-weight `cross_entropy`) gives the configured gradient on `p`, or is adapted. */
function customPath(p: EngineProfile, option: string, what: string): OptionVerdict {
  if (p.normalisation === 'sequence-mean') {
    return v(
      option,
      'adapted',
      `${what} runs as forward + a weighted backward; ${p.name} divides each datum's loss by its weight sum (signed weights w = −g with Σw < 0 would be divided by 1e-9) and averages over datums, so agentrl sends the backward as importance_sampling with advantages −g·T·N, weights one over the whole datum, at optim_step`,
    );
  }
  if (!p.forward) {
    return v(
      option,
      'adapted',
      `${what} runs as forward + a weighted cross_entropy backward; ${p.name} has no /api/v1/forward, so the forward is a forward_backward with zero weights (zero gradient on a token-sum engine)`,
    );
  }
  return v(option, 'exact', `${what} runs as forward + a weighted cross_entropy backward (token sums)`);
}

/**
 * One verdict per Trainer option that depends on the engine: `exact` (the update is the one the embedded engine
 * makes), `adapted` (agentrl changes what it sends so the update is the configured one; `reason` says how) or
 * `refused` (`reason` says why; the Trainer throws `ConfigError` before the first rollout). Pure: facts in, verdicts out.
 */
export function checkEngineOptions(p: EngineProfile, f: BackendOptionFacts): OptionVerdict[] {
  const out: OptionVerdict[] = [];
  const eng = p.name;

  // Loss.
  const def = lossDefinition(f.loss);
  const native = def.native?.lossFn;
  const kind = f.loss.kind;
  if (native === undefined) {
    out.push(customPath(p, 'loss.kind', `loss.kind '${kind}'`));
  } else if (!p.losses[native].supported) {
    const why = (p.losses[native] as { why: string }).why;
    const c = customPath(p, 'loss.kind', `loss.kind '${kind}'`);
    out.push(v('loss.kind', 'adapted', `${eng} has no '${native}' loss_fn (${why}); ${c.reason}`));
  } else if (p.normalisation === 'sequence-mean') {
    out.push(
      v(
        'loss.kind',
        'adapted',
        `${eng} normalises each datum's loss by its weight sum, then averages over the datums since the last optim_step (zero-weight ones included); agentrl defers the backward to optimStep and scales the advantages by (datum length × datums in the step), weights one over the datum${native === 'cross_entropy' ? " (cross_entropy is sent as importance_sampling against the forward's logprobs: the same gradient)" : ''}`,
      ),
    );
  } else {
    out.push(v('loss.kind', 'exact', `native '${native}' loss_fn, token sums; aggregation folded into the per-token ${def.native!.scales}`));
  }

  // Optimizer.
  const fields: readonly AdamField[] = ADAM_FIELDS.filter((k) => k !== 'learningRate');
  for (const k of fields) {
    const configured = f.optimizer[k];
    if (p.honouredOptimizer.includes(k)) {
      out.push(v(`optimizer.${k}`, 'exact', `sent in adam_params and applied by ${eng}`));
      continue;
    }
    const fixed = p.fixedOptimizer[k];
    if (fixed !== undefined && fixed === configured) {
      out.push(
        v(`optimizer.${k}`, 'exact', `${eng} ignores adam_params.${k} and uses its own ${fixed} (its config default), which equals the configured value`),
      );
    } else {
      out.push(
        v(
          `optimizer.${k}`,
          'refused',
          `${eng} ignores adam_params.${k}${fixed !== undefined ? ` and uses ${fixed} from its own config` : ''}, so ${configured} would not be applied; set optimizer.${k}: ${fixed ?? "the server's value"}`,
        ),
      );
    }
  }
  out.push(v('optimizer.learningRate', 'exact', `sent per step in adam_params (schedules included)`));

  // KL penalty.
  if (f.kl) {
    if (f.kl.reference === 'base') {
      if (p.samplers === 'current-policy') {
        out.push(
          v(
            'kl.reference',
            'refused',
            `${eng} samples every sampler with the current policy (a sampler's checkpoint is not kept), so a 'base' reference would score with the trained weights and the KL would be ~0; pass a SamplingClient of the base model from another server as kl.reference`,
          ),
        );
      } else if (p.samplers === 'loads-into-training-slot') {
        out.push(
          v(
            'kl.reference',
            'refused',
            `${eng} loads an older sampler checkpoint into the training adapter slot, so scoring with the step-0 reference would roll the trained weights back; pass a SamplingClient of the base model from another server as kl.reference`,
          ),
        );
      } else if (p.promptLogprobs === 'none') {
        out.push(
          v(
            'kl.reference',
            'refused',
            `${eng} returns no prompt logprobs, so a sampler of it cannot score the datums (computeLogprobs); pass a SamplingClient from another server as kl.reference`,
          ),
        );
      } else if (p.promptLogprobs === 'N-1') {
        out.push(v('kl.reference', 'adapted', `${eng} returns N−1 prompt logprobs for N tokens (no entry for token 0); agentrl re-aligns them (entry 0 null)`));
      } else {
        out.push(v('kl.reference', 'exact', `sampler checkpoints are frozen; prompt logprobs score the datums`));
      }
    } else {
      out.push(v('kl.reference', 'exact', 'a SamplingClient you pass scores the datums itself'));
    }
    if (f.kl.placement === 'loss') out.push(customPath(p, 'kl.placement', "kl.placement 'loss'"));
  }

  if (f.rolloutCorrection) {
    out.push(
      p.normalisation === 'sequence-mean'
        ? v(
            'rolloutCorrection',
            'adapted',
            `its learner pass is a zero-weight forward_backward, which ${eng} would count in its per-step mean; agentrl sends it as a forward only (no gradient, not counted)`,
          )
        : v('rolloutCorrection', 'exact', 'its learner pass is a zero-weight forward_backward (no gradient on a token-sum engine)'),
    );
  }

  if (f.maxStaleness > 0) {
    if (p.samplers === 'frozen') out.push(v('async.maxStaleness', 'exact', 'older samplers keep their weights'));
    else if (p.samplers === 'current-policy') {
      out.push(
        v(
          'async.maxStaleness',
          'refused',
          `${eng} samples every sampler with the current policy, so rollouts of a stale sampler are not from the weights the Trainer accounts them to${eng.startsWith('skyrl') ? ' (and colocated vLLM sleeps during forward/forward_backward, waking only on save_weights_for_sampler, so rollouts cannot run while the learner trains)' : ''}; use async.maxStaleness: 0`,
        ),
      );
    } else
      out.push(
        v(
          'async.maxStaleness',
          'refused',
          `${eng} loads an older sampler checkpoint into the training adapter slot, so sampling a stale sampler while training rolls the trained weights back; use async.maxStaleness: 0`,
        ),
      );
  }

  if (f.resume) {
    out.push(
      Number.isFinite(p.modelsPerServer) && p.unloadModel
        ? v(
            'resume',
            'adapted',
            `${eng} holds at most ${p.modelsPerServer} model(s); loadState creates a new model, so agentrl unloads the current one first (unload_model)`,
          )
        : v('resume', 'exact', 'loadState loads into a new model (load_weights as its first request)'),
    );
  }

  const pollMs = pollMsFor(p);
  out.push(
    pollMs > DEFAULT_POLL_MS
      ? v(
          'timeouts.pollMs',
          'adapted',
          `${eng} holds a retrieve_future poll up to ${p.pollHold.ms / 1000} s (then ${p.pollHold.answer === '408' ? 'HTTP 408' : 'try_again'}); the client's per-poll deadline defaults to ${pollMs / 1000} s, and a 408 means poll again`,
        )
      : v('timeouts.pollMs', 'exact', `${eng} answers a poll within ${p.pollHold.ms / 1000} s (client deadline ${DEFAULT_POLL_MS / 1000} s)`),
  );
  return out;
}

/** The refused verdicts as `ConfigError` issues (`path`: the option; `message`: engine and why). */
export function refusedIssues(engine: string, verdicts: readonly OptionVerdict[]): { path: string; message: string }[] {
  return verdicts.filter((x) => x.outcome === 'refused').map((x) => ({ path: x.option, message: `not supported by ${engine}: ${x.reason}` }));
}
