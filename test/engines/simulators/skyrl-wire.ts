/**
 * What every SkyRL backend shares: SkyRL's Tinker API server (NovaSky-AI/SkyRL@a956457, skyrl/tinker/api.py).
 * Line numbers below are of that file unless said otherwise.
 */
import { ServeRequestError } from '../../../apps/serve/tinker/index.js';
import type { FutureBody } from './own-futures.js';
import type { EngineBehaviour, ServiceOverrides, SimAnswer } from './simulator.js';

/** retrieve_future holds a poll RETRIEVE_FUTURE_TIMEOUT_SECONDS = 300 s (l.70-71), then 408 {detail} (l.1399-1400). */
export const SKYRL_HOLD: EngineBehaviour['hold'] = { ms: 300_000, answer: '408' };

/**
 * Errors are FastAPI HTTPExceptions: `{detail}` with the status (l.358, 381, 1397); a failed future is answered 400
 * `{detail: error}` on the poll itself (l.1419-1424), not a 200 with `{error, category}`.
 */
export function skyrlError(status: number, message: string, where: 'submit' | 'future'): SimAnswer {
  return { status: where === 'future' ? 400 : status, body: { detail: message } };
}

/** optim_step metrics are `skyrl.ai/grad_norm` and `skyrl.ai/learning_rate` (jax.py:141-147; skyrl_train_backend.py:1039-1041). */
export function skyrlResult(body: FutureBody): FutureBody {
  if (body['type'] !== 'optim_step') return body;
  const m = (body['metrics'] ?? {}) as Record<string, number>;
  return { ...body, metrics: { 'skyrl.ai/grad_norm': m['grad_norm'] ?? 0, 'skyrl.ai/learning_rate': m['learning_rate'] ?? 0 } };
}

const notFound: SimAnswer = { status: 404, body: { detail: 'Not Found' } };

/**
 * Routes: there is no `GET /api/v1/checkpoints` nor `/api/v1/sessions` (the routes are l.899-1692); the archive route is
 * `/training_runs/{unique_id}/checkpoints/{checkpoint_id}/archive` with `checkpoint_id` one `^[a-zA-Z0-9_-]+$` segment
 * (l.62, 1540-1556), and only sampler checkpoints have one (validate_checkpoint(…, SAMPLER), l.1548).
 */
export async function skyrlIntercept(url: string, method: string, inject: (url: string) => Promise<SimAnswer>): Promise<SimAnswer | undefined> {
  const path = url.split('?')[0]!;
  if (method === 'GET' && (path === '/api/v1/checkpoints' || path.startsWith('/api/v1/sessions'))) return notFound;
  const archive = /^\/api\/v1\/training_runs\/([^/]+)\/checkpoints\/(.+)\/archive$/.exec(path);
  if (method === 'GET' && archive) {
    const id = archive[2]!;
    if (!/^[a-zA-Z0-9_-]+$/.test(id)) return notFound;
    return inject(`/api/v1/training_runs/${archive[1]}/checkpoints/sampler_weights/${id}/archive`);
  }
  return undefined;
}

/**
 * load_weights is permitted only as a model's first request (l.1186-1202): any earlier request of the model but
 * create_model makes it 400 `LoadWeights is not permitted with seq_id N`. Wraps `overrides` to count requests per model.
 */
export function firstRequestLoads(overrides: ServiceOverrides, inner: Required<ServiceOverrides>): ServiceOverrides {
  const count = new Map<string, number>();
  const seen = (id: string) => count.set(id, (count.get(id) ?? 0) + 1);
  const out: ServiceOverrides = { ...overrides };
  const counted = ['forwardBackward', 'forward', 'optimStep', 'saveWeights', 'saveWeightsForSampler', 'unloadModel'] as const;
  for (const k of counted) {
    const f = (overrides[k] ?? inner[k]) as (body: { model_id: string }, ...rest: unknown[]) => { request_id: string; model_id: string };
    (out as Record<string, unknown>)[k] = (body: { model_id: string }, ...rest: unknown[]) => {
      const r = f(body, ...rest);
      seen(body.model_id);
      return r;
    };
  }
  const load = overrides.loadWeights ?? inner.loadWeights;
  out.loadWeights = (body, caller) => {
    const prior = count.get(body.model_id) ?? 0;
    if (prior > 0) throw new ServeRequestError(400, `LoadWeights is not permitted with seq_id ${body.seq_id ?? prior + 1}`);
    const r = load(body, caller);
    seen(body.model_id);
    return r;
  };
  return out;
}

/** asample needs `max_tokens ≥ 1` (api.py:709-713: 400 "max_tokens is currently required" / "must be a positive number"). */
export function checkMaxTokens(maxTokens: number | null | undefined): void {
  if (maxTokens == null) throw new ServeRequestError(400, 'max_tokens is currently required');
  if (maxTokens <= 0) throw new ServeRequestError(400, 'max_tokens must be a positive number');
}
