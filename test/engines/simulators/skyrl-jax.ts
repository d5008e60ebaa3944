/**
 * SkyRL's Tinker API with the JAX backend (NovaSky-AI/SkyRL@a956457: skyrl/backends/jax.py, skyrl/tinker/api.py,
 * skyrl/tinker/loss_fns.py, skyrl/tx/utils/generator.py), over the embedded engine.
 */
import type { TinkerService } from '../../../apps/serve/tinker/index.js';
import { weightedDatum, weightsOrOnes, type WireDatum } from './datums.js';
import { innerResult } from './own-futures.js';
import { checkMaxTokens, firstRequestLoads, SKYRL_HOLD, skyrlError, skyrlIntercept, skyrlResult } from './skyrl-wire.js';
import { innerMethods, type EngineSpec } from './simulator.js';

type FbBody = Parameters<TinkerService['forwardBackward']>[0];
interface Pending {
  readonly lossFn: string;
  readonly config: FbBody['forward_backward_input']['loss_fn_config'];
  readonly data: WireDatum[];
}

/** The SkyRL-JAX simulator. */
export const skyrlJax: EngineSpec = {
  hold: SKYRL_HOLD,
  make(ctx) {
    const { inner, caller, samplers, own } = ctx;
    const base = innerMethods(inner);
    /** Per model: the datums of every forward_backward since the last optim_step, by seq_id (a retried seq_id is one). */
    const pending = new Map<string, Map<number | string, Pending>>();
    /** Per model: the sampler checkpoint loaded in its adapter slot (jax.py ModelMetadata.loaded_checkpoint_id). */
    const loaded = new Map<string, string>();
    /**
     * Sampler checkpoint → the training state saved with it (what load_sampler_checkpoint reads back from disk) and the
     * model's weights version then (a load of a checkpoint saved since the last change is a no-op).
     */
    const slotState = new Map<string, { readonly path: string; readonly version: number }>();
    let slots = 0;

    return {
      error: skyrlError,
      result: skyrlResult,
      intercept: (req, inject) => skyrlIntercept(req.url, req.method, inject),
      overrides: firstRequestLoads(
        {
          // Missing weights are ones over the whole datum, prompt included (api.py:592-593). Each datum's loss is
          // Σ_t ℓ_t·w_t / max(Σ_t w_t, 1e-9) (jax.py:406; loss_fns.py:20-22 multiplies ℓ by the weights); gradients are
          // summed per adapter and divided at optim_step by the count of datums since the last step (jax.py:167-185,
          // 540), zero-weight ones included. Outputs (logprobs) come from a forward at the same weights; the gradient
          // is computed at optim_step, before the update, over the same weights (nothing changes them in between).
          forwardBackward(body) {
            const input = body.forward_backward_input;
            const data = input.data.map((d) => {
              const wts = weightsOrOnes(d);
              const norm = Math.max(
                wts.reduce((a, b) => a + b, 0),
                1e-9,
              );
              return weightedDatum(
                d,
                input.loss_fn,
                wts.map((x) => x / norm),
              );
            });
            const mine = pending.get(body.model_id) ?? new Map<number | string, Pending>();
            pending.set(body.model_id, mine);
            const key = body.seq_id ?? `anon-${mine.size}`;
            const r = base.forward({ model_id: body.model_id, seq_id: body.seq_id ?? null, forward_input: input }, caller);
            if (!mine.has(key)) mine.set(key, { lossFn: input.loss_fn, config: input.loss_fn_config, data });
            return r;
          },
          // Adam fields are honoured (jax.py:806-818, optax.adamw via inject_hyperparams, l.594); gradients are never
          // clipped (compute_grads_and_update, l.533-556, has no clipping).
          optimStep(body) {
            const mine = [...(pending.get(body.model_id)?.values() ?? [])];
            pending.delete(body.model_id);
            const n = mine.reduce((a, p) => a + p.data.length, 0);
            for (const p of mine) {
              const data = p.data.map((d) => scaled(d, p.lossFn, 1 / n));
              base.forwardBackward(
                { model_id: body.model_id, seq_id: null, forward_backward_input: { data, loss_fn: p.lossFn, loss_fn_config: p.config } },
                caller,
              );
            }
            const adam = { ...body.adam_params, grad_clip_norm: 0 };
            ctx.record.adam.push(adam);
            samplers.touch(body.model_id);
            return base.optimStep({ ...body, adam_params: adam }, caller);
          },
          // save_sampler_checkpoint writes the adapter to disk (jax.py:988-999) and does NOT mark it loaded.
          saveWeightsForSampler(body) {
            const r = base.saveWeightsForSampler(body, caller);
            const name = `jax-sampler-slot-${slots++}`;
            const version = samplers.version(body.model_id);
            base.saveWeights({ model_id: body.model_id, seq_id: null, path: name }, caller);
            samplers.track(body.model_id, r.request_id, (ref) => slotState.set(ref, { path: `tinker://${body.model_id}/weights/${name}`, version }));
            return r;
          },
          async createSamplingSession(body) {
            const r = await base.createSamplingSession(body, caller);
            if (body.model_path != null) samplers.alias(r.sampling_session_id, body.model_path);
            return r;
          },
          // load_sampler_weights (jax.py:1009-1040): a model's sampler checkpoint other than the one loaded is read
          // from disk INTO the model's adapter slot — the training weights (load_sampler_checkpoint, l.1001-1007) —
          // and sampling uses that slot as it is. Base-model requests use adapter 0 (the base weights).
          // Prompt logprobs: N−1 entries for N prompt tokens, no leading null (tx/utils/generator.py:438).
          async sample(body) {
            checkMaxTokens(body.sampling_params.max_tokens);
            await samplers.settled();
            const owner = samplers.ownerOf(body.sampling_session_id ?? body.model_path);
            let b = body;
            if (owner) {
              const state = slotState.get(owner.checkpoint);
              if (state !== undefined && loaded.get(owner.modelId) !== owner.checkpoint) {
                // JAX keeps the optimizer state; agentrl serve's load restores the one saved with the slot (the same
                // when nothing trained since the save — then the load is skipped — older otherwise).
                if (state.version !== samplers.version(owner.modelId)) {
                  await innerResult(
                    inner,
                    caller,
                    base.loadWeights({ model_id: owner.modelId, seq_id: null, path: state.path, optimizer: true }, caller).request_id,
                  );
                  samplers.touch(owner.modelId);
                }
                loaded.set(owner.modelId, owner.checkpoint);
              }
              b = { ...body, sampling_session_id: await samplers.current(owner.modelId), model_path: null, base_model: null };
            }
            const r = await base.sample(b, caller);
            if (!body.prompt_logprobs) return r;
            return {
              request_id: own.create(
                innerResult(inner, caller, r.request_id).then((res) => {
                  const lp = res['prompt_logprobs'];
                  return Array.isArray(lp) ? { ...res, prompt_logprobs: lp.slice(1) } : res;
                }),
              ),
            };
          },
        },
        base,
      ),
    };
  },
};

function scaled(d: WireDatum, lossFn: string, factor: number): WireDatum {
  const key = lossFn === 'cross_entropy' ? 'weights' : 'advantages';
  const t = d.loss_fn_inputs[key]!;
  return { ...d, loss_fn_inputs: { ...d.loss_fn_inputs, [key]: { ...t, data: t.data.map((x) => x * factor) } } };
}
