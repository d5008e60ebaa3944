/**
 * SkyRL's Tinker API with the SkyRL-Train backends, `fsdp` and `megatron` (NovaSky-AI/SkyRL@a956457:
 * skyrl/backends/skyrl_train_backend.py — "backend.py" below —, skyrl/backends/skyrl_train/workers/worker.py,
 * skyrl/train/config/config.py), over the embedded engine.
 */
import { randomBytes } from 'node:crypto';
import { weightedDatum, weightsOrOnes } from './datums.js';
import { checkMaxTokens, firstRequestLoads, SKYRL_HOLD, skyrlError, skyrlIntercept, skyrlResult } from './skyrl-wire.js';
import { innerMethods, type EngineSpec } from './simulator.js';

/** SkyRL-Train's optimizer config defaults (config.py:186-197; AdamW's eps is torch's default 1e-8). */
const SKYRL_TRAIN_ADAM = { beta1: 0.9, beta2: 0.999, eps: 1e-8, weight_decay: 0.01, grad_clip_norm: 1.0 };

/** The simulator of SkyRL-Train with `strategy` (`'fsdp'` or `'megatron'`). */
export function skyrlTrain(strategy: 'fsdp' | 'megatron'): EngineSpec {
  return {
    hold: SKYRL_HOLD,
    make(ctx) {
      const { inner, caller, samplers, own } = ctx;
      const base = innerMethods(inner);
      let loraRank: number | undefined;
      return {
        error: skyrlError,
        result: skyrlResult,
        intercept: (req, inject) => skyrlIntercept(req.url, req.method, inject),
        overrides: firstRequestLoads(
          {
            // One policy per server. FSDP: a second model while one is loaded reaches register_adapter, which raises
            // NotImplementedError (backend.py:469-490 → worker.py:1371-1390); after an unload the runtime is torn down
            // and rebuilt (backend.py:584-621). Megatron registers more LoRA adapters, all with the first (rank, alpha)
            // (backend.py:481-489). The failure is the future's: 400 {detail} on the poll (engine.py:760-762).
            createModel(body) {
              const rank = body.lora_config?.rank ?? 32;
              let why: string | undefined;
              if (inner.modelCount > 0) {
                if (strategy === 'fsdp') {
                  why =
                    'PolicyWorker.register_adapter is not implemented: multi-tenant LoRA adapter management (the adapter store) is currently only supported on the Megatron backend. The FSDP backend supports a single LoRA adapter (or full fine-tuning) per worker group.';
                } else if (rank !== loraRank) {
                  why = `LoRA signature mismatch: got (rank, alpha)=(${rank}, 32), first adapter registered with (${loraRank}, 32).`;
                }
              }
              if (why !== undefined) {
                ctx.record.refusals.push(`create_model: ${why}`);
                return { request_id: own.create(Promise.reject(new Error(why))), model_id: `model_${randomBytes(4).toString('hex')}` };
              }
              if (inner.modelCount === 0) loraRank = rank;
              return base.createModel(body, caller);
            },
            // Plain sums: the policy losses are pre-scaled sums (worker.py:1083-1086), weighted by loss_mask = the
            // datum's weights (backend.py:676-680; ones when absent, api.py:592-593). ppo/gspo thresholds are renamed
            // eps_clip_low = 1 − low, eps_clip_high = high − 1 (backend.py:840-872) — the same clip range. cispo keeps
            // clip_*_threshold, which AlgorithmConfig rejects: ValueError "Invalid fields" (config.py:1573) in the
            // future; without a config it runs with cispo_eps_clip_low 1.0 / high 4.0, i.e. ratios in [0, 5]
            // (config.py:751-760).
            forwardBackward(body) {
              const input = body.forward_backward_input;
              const keys = Object.keys(input.loss_fn_config ?? {});
              if (input.loss_fn === 'cispo' && keys.length > 0) {
                // The request still becomes a future (and uses up its seq_id): an empty forward consumes it.
                base.forward({ model_id: body.model_id, seq_id: body.seq_id ?? null, forward_input: { data: [], loss_fn: 'cross_entropy' } }, caller);
                const why = `Invalid fields ${JSON.stringify(keys.sort())} for AlgorithmConfig.`;
                ctx.record.refusals.push(`forward_backward: ${why}`);
                return { request_id: own.create(Promise.reject(new Error(why))), model_id: body.model_id };
              }
              const config = input.loss_fn === 'cispo' ? { clip_low_threshold: 0, clip_high_threshold: 5 } : input.loss_fn_config;
              const data = input.data.map((d) => weightedDatum(d, input.loss_fn, weightsOrOnes(d)));
              return base.forwardBackward({ ...body, forward_backward_input: { ...input, data, loss_fn_config: config } }, caller);
            },
            // Only the learning rate is applied (backend.py:1027-1033: "beta1, beta2, eps are fixed at optimizer
            // creation"); the rest are SkyRL-Train's optimizer config, gradient clipping 1.0 included.
            optimStep(body) {
              const adam = { ...SKYRL_TRAIN_ADAM, learning_rate: body.adam_params.learning_rate };
              ctx.record.adam.push(adam);
              samplers.touch(body.model_id);
              return base.optimStep({ ...body, adam_params: adam }, caller);
            },
            // save_sampler_checkpoint syncs the policy weights to the inference engines (backend.py:1299-1321).
            saveWeightsForSampler(body) {
              const r = base.saveWeightsForSampler(body, caller);
              samplers.track(body.model_id, r.request_id);
              return r;
            },
            async createSamplingSession(body) {
              const r = await base.createSamplingSession(body, caller);
              if (body.model_path != null) samplers.alias(r.sampling_session_id, body.model_path);
              return r;
            },
            // Sampling ignores the checkpoint: each request goes to the inference engine under the model's name
            // (backend.py:1079-1095), which holds the weights of the model's last sync — whatever sampler was asked.
            async sample(body) {
              checkMaxTokens(body.sampling_params.max_tokens);
              await samplers.settled();
              const owner = samplers.ownerOf(body.sampling_session_id ?? body.model_path);
              const latest = owner ? samplers.latest(owner.modelId) : undefined;
              const b = latest !== undefined ? { ...body, sampling_session_id: latest, model_path: null, base_model: null } : body;
              return base.sample(b, caller);
            },
          },
          base,
        ),
      };
    },
  };
}
