import { request } from 'undici';
import type { Datum } from '../../src/types/datum.js';

/** A bare Tinker-protocol caller for server tests (no retries, no typed errors): status + parsed JSON. */
export async function call(base: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: any }> {
  const res = await request(`${base}/api/v1/${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    // A fresh connection each call: a test thread busy with an in-process reference engine cannot race the server's keep-alive timer.
    reset: true,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.body.text();
  return { status: res.statusCode, body: text ? JSON.parse(text) : undefined };
}

/** Polls `retrieve_future` until the result is not `try_again`. */
export async function result(base: string, requestId: string, headers: Record<string, string> = {}): Promise<any> {
  for (;;) {
    const r = await call(base, 'retrieve_future', { request_id: requestId }, headers);
    if (r.status !== 200) throw new Error(`retrieve_future ${r.status}: ${JSON.stringify(r.body)}`);
    if (r.body?.type !== 'try_again') return r.body;
  }
}

/** Submits and waits: the future's result. */
export async function submit(base: string, path: string, body: unknown, headers: Record<string, string> = {}): Promise<any> {
  const r = await call(base, path, body, headers);
  if (r.status !== 200) throw new Error(`${path} ${r.status}: ${JSON.stringify(r.body)}`);
  return result(base, r.body.request_id, headers);
}

/** A session and one model; returns their ids. */
export async function newModel(base: string, headers: Record<string, string> = {}): Promise<{ sessionId: string; modelId: string }> {
  const s = await call(base, 'create_session', { tags: [], type: 'create_session' }, headers);
  const m = await submit(base, 'create_model', { session_id: s.body.session_id, model_seq_id: 0, lora_config: { rank: 8 }, type: 'create_model' }, headers);
  return { sessionId: s.body.session_id, modelId: m.model_id };
}

const tensor = (xs: readonly number[], dtype: 'int64' | 'float32') => ({ data: [...xs], dtype, shape: [xs.length] });

/** Our `Datum` as a Tinker datum for `lossFn` (weights for cross_entropy; logprobs + advantages otherwise). */
export function wireDatum(d: Datum, lossFn: string): unknown {
  const inputs: Record<string, unknown> = { target_tokens: tensor(d.targetTokens, 'int64') };
  if (lossFn === 'cross_entropy') inputs['weights'] = tensor(d.weights ?? d.mask, 'float32');
  else {
    inputs['logprobs'] = tensor(d.logprobs, 'float32');
    inputs['advantages'] = tensor(d.advantages, 'float32');
  }
  return { model_input: { chunks: [{ tokens: [...d.modelInput], type: 'encoded_text' }] }, loss_fn_inputs: inputs };
}
