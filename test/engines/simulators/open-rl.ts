/**
 * open-rl (gke-labs/open-rl@bfc0f09: src/server/gateway.py, src/server/trainer.py, src/server/store.py), over the
 * embedded engine.
 */
import type { FutureBody } from './own-futures.js';
import { weightedDatum, weightsOrOnes } from './datums.js';
import { innerMethods, type EngineSpec, type SimAnswer } from './simulator.js';

/** The routes gateway.py defines (l.133-467); every other path is FastAPI's 404. */
const ROUTES = new Set([
  'GET /api/v1/healthz',
  'GET /api/v1/get_server_capabilities',
  'POST /api/v1/client/config',
  'POST /api/v1/create_session',
  'POST /api/v1/session_heartbeat',
  'POST /api/v1/create_model',
  'POST /api/v1/create_model_from_state',
  'POST /api/v1/get_info',
  'POST /api/v1/retrieve_future',
  'POST /api/v1/forward_backward',
  'POST /api/v1/optim_step',
  'POST /api/v1/save_weights_for_sampler',
  'POST /api/v1/save_weights',
  'POST /api/v1/load_weights',
  'POST /api/v1/create_sampling_session',
  'POST /api/v1/asample',
  'GET /api/v1/list_adapters',
  'POST /api/v1/telemetry',
]);

/** The open-rl simulator. */
export const openRl: EngineSpec = {
  // retrieve_future waits 60 s (gateway.py:231), then try_again (store.py:86-99).
  hold: { ms: 60_000, answer: 'try_again' },
  make(ctx) {
    const { inner, caller, samplers } = ctx;
    const base = innerMethods(inner);
    /** The Adam settings each model's optimizer was created with at its first optim_step. */
    const created = new Map<string, { beta1?: number | null; beta2?: number | null; eps?: number | null; weight_decay?: number | null }>();
    return {
      // Refusals are 400 {error} (gateway.py:173-175, 213-215, 246-248); a failed future is answered 400 with the
      // stored {type: RequestFailedResponse, error_message} (gateway.py:231-236).
      error: (_status, message, where): SimAnswer =>
        where === 'future' ? { status: 400, body: { type: 'RequestFailedResponse', error_message: message } } : { status: 400, body: { error: message } },
      // optim_step reports only `grad_norm:mean` (trainer.py:434-438).
      result: (body: FutureBody) =>
        body['type'] === 'optim_step' ? { ...body, metrics: { 'grad_norm:mean': (body['metrics'] as Record<string, number>)['grad_norm'] ?? 0 } } : body,
      intercept(req) {
        const path = req.url.split('?')[0]!;
        if (!ROUTES.has(`${req.method} ${path}`)) return { status: 404, body: { detail: 'Not Found' } };
        // Every handler takes `req: dict`: a protobuf body fails FastAPI's validation, 422.
        if (String(req.headers['content-type'] ?? '').includes('protobuf')) {
          return {
            status: 422,
            body: { detail: [{ type: 'model_attributes_type', loc: ['body'], msg: 'Input should be a valid dictionary or object to extract fields from' }] },
          };
        }
        return undefined;
      },
      overrides: {
        // seq_id is never read (gateway.py:240-268 enqueue model_id, data, loss_fn, config only): no ordering by it,
        // no dedupe, no 409 — requests run in arrival order per model (store.py put_request).
        // Losses: cross_entropy, importance_sampling, ppo; anything else raises NotImplementedError (trainer.py:255-263).
        // Each is Σ_t over the datum weighted by `weights`, ones when absent (trainer.py:293-296, 317, 341, 379).
        // ppo's clip is ±clip_range (default 0.2) from loss_fn_config; clip_low/high_threshold are not read
        // (trainer.py:362-366).
        forwardBackward(body) {
          const input = body.forward_backward_input;
          if (!['cross_entropy', 'importance_sampling', 'ppo'].includes(input.loss_fn)) {
            ctx.record.refusals.push(`forward_backward: Loss ${input.loss_fn} not supported`);
            return { request_id: ctx.own.create(Promise.reject(new Error(`Loss ${input.loss_fn} not supported`))), model_id: body.model_id };
          }
          const eps = input.loss_fn_config?.['clip_range'] ?? 0.2;
          const config = input.loss_fn === 'ppo' ? { clip_low_threshold: 1 - eps, clip_high_threshold: 1 + eps } : null;
          const data = input.data.map((d) => weightedDatum(d, input.loss_fn, weightsOrOnes(d)));
          return base.forwardBackward(
            { model_id: body.model_id, seq_id: null, forward_backward_input: { data, loss_fn: input.loss_fn, loss_fn_config: config } },
            caller,
          );
        },
        // The AdamW optimizer is created at a model's first optim_step with that step's betas, eps and weight decay;
        // later steps change only the learning rate. grad_clip_norm is read every step (trainer.py:397-430).
        // The adapter is saved after every step (trainer.py:432), and that is what sampling loads.
        optimStep(body) {
          const first = created.get(body.model_id) ?? body.adam_params;
          created.set(body.model_id, first);
          const adam = {
            ...body.adam_params,
            beta1: first.beta1 ?? 0.9,
            beta2: first.beta2 ?? 0.95,
            eps: first.eps ?? 1e-12,
            weight_decay: first.weight_decay ?? 0,
          };
          ctx.record.adam.push(adam);
          samplers.touch(body.model_id);
          return base.optimStep({ model_id: body.model_id, seq_id: null, adam_params: adam }, caller);
        },
        saveWeights: (body) => base.saveWeights({ ...body, seq_id: null }, caller),
        loadWeights: (body) => base.loadWeights({ ...body, seq_id: null }, caller),
        saveWeightsForSampler(body) {
          const r = base.saveWeightsForSampler({ ...body, seq_id: null }, caller);
          samplers.track(body.model_id, r.request_id);
          return r;
        },
        async createSamplingSession(body) {
          const r = await base.createSamplingSession(body, caller);
          if (body.model_path != null) samplers.alias(r.sampling_session_id, body.model_path);
          return r;
        },
        // asample forwards prompt, max_tokens, temperature, stop, top_p, top_k, num_samples only — no seed, no
        // prompt_logprobs (gateway.py:365-420) — and samples the model's adapter as last saved (the lora path is
        // derived from the model id, gateway.py:385-388), i.e. its weights after its latest optim_step.
        async sample(body) {
          await samplers.settled();
          const owner = samplers.ownerOf(body.sampling_session_id ?? body.model_path);
          const params = ctx.keepSamplingSeed ? body.sampling_params : { ...body.sampling_params, seed: null };
          const b = { ...body, sampling_params: params, prompt_logprobs: null };
          if (!owner) return base.sample(b, caller);
          return base.sample({ ...b, sampling_session_id: await samplers.current(owner.modelId), model_path: null, base_model: null }, caller);
        },
      },
    };
  },
};
