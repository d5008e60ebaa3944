import { BackendRequestError } from '../../errors/index.js';
import type { SampledSequence, StopReason } from '../../types/sampling.js';

/** A flat tensor of the protocol (`TensorData`); only 1-D tensors of length T are sent. */
export interface WireTensor {
  readonly dtype: 'int64' | 'float32';
  readonly data: readonly number[];
}

/** One datum as the protocol sees it: input tokens and `loss_fn_inputs` keyed by name. */
export interface WireDatum {
  readonly modelInput: readonly number[];
  readonly inputs: Readonly<Record<string, WireTensor>>;
}

/** `ModelInput` JSON: one `encoded_text` chunk. */
export function modelInputJson(tokens: readonly number[]): { chunks: { type: 'encoded_text'; tokens: number[] }[] } {
  return { chunks: [{ type: 'encoded_text', tokens: Array.from(tokens) }] };
}

/** `Datum` JSON: `{ model_input, loss_fn_inputs: { key: { data, dtype, shape } } }`. */
export function datumJson(d: WireDatum): Record<string, unknown> {
  const inputs: Record<string, unknown> = {};
  for (const [k, t] of Object.entries(d.inputs)) inputs[k] = { data: Array.from(t.data), dtype: t.dtype, shape: [t.data.length] };
  return { model_input: modelInputJson(d.modelInput), loss_fn_inputs: inputs };
}

/** `ForwardBackwardInput` JSON. */
export function forwardBackwardInputJson(
  datums: readonly WireDatum[],
  lossFn: string,
  lossFnConfig?: Readonly<Record<string, number>>,
): Record<string, unknown> {
  return { data: datums.map(datumJson), loss_fn: lossFn, ...(lossFnConfig ? { loss_fn_config: { ...lossFnConfig } } : {}) };
}

/** Decoded `ForwardBackwardOutput`: learner logprobs per datum and the server's metrics. */
export interface ForwardBackwardOutput {
  readonly logprobs: number[][];
  readonly metrics: Record<string, number>;
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function bad(op: string, what: string): never {
  throw new BackendRequestError(op, 'unknown', `malformed result: ${what}`);
}

function numbers(op: string, v: unknown, what: string): number[] {
  if (!Array.isArray(v) || !v.every((x) => typeof x === 'number' || x === null)) bad(op, `${what} is not a list of numbers`);
  return (v as (number | null)[]).map((x) => (x === null ? Number.NaN : x));
}

function metricsOf(op: string, v: unknown): Record<string, number> {
  if (v === undefined || v === null) return {};
  if (!isObj(v)) bad(op, 'metrics is not an object');
  const out: Record<string, number> = {};
  for (const [k, x] of Object.entries(v)) if (typeof x === 'number') out[k] = x;
  return out;
}

/** Parses a JSON `ForwardBackwardOutput` with `n` datums. @throws BackendRequestError on a malformed body. */
export function parseForwardBackwardJson(op: string, body: unknown, n: number): ForwardBackwardOutput {
  if (!isObj(body) || !Array.isArray(body['loss_fn_outputs'])) bad(op, 'no loss_fn_outputs');
  const outs = body['loss_fn_outputs'] as unknown[];
  if (outs.length !== n) bad(op, `${outs.length} loss_fn_outputs for ${n} datums`);
  const logprobs = outs.map((o, i) => {
    const t = isObj(o) ? o['logprobs'] : undefined;
    const data = isObj(t) ? t['data'] : t;
    return numbers(op, data, `loss_fn_outputs[${i}].logprobs`);
  });
  return { logprobs, metrics: metricsOf(op, body['metrics']) };
}

/** Parses the JSON `{ metrics? }` of an `optim_step` result. */
export function parseMetricsJson(op: string, body: unknown): Record<string, number> {
  return isObj(body) ? metricsOf(op, body['metrics']) : {};
}

/** Decoded `SampleResponse`. `promptLogprobs` as sent (`null` where the server sent none, as for token 0 usually). */
export interface SampleOutput {
  readonly sequences: SampledSequence[];
  readonly promptLogprobs?: (number | null)[];
}

function stopReason(op: string, v: unknown): StopReason {
  if (v === 'stop' || v === 'length') return v;
  // Servers forwarding to vLLM may say `abort` or `eos`; an end that is not the length limit counts as a stop.
  if (typeof v === 'string') return 'stop';
  return bad(op, `stop_reason ${JSON.stringify(v)}`);
}

/** Parses a JSON `SampleResponse`. @throws BackendRequestError on a malformed body. */
export function parseSampleJson(op: string, body: unknown): SampleOutput {
  if (!isObj(body) || !Array.isArray(body['sequences'])) bad(op, 'no sequences');
  const sequences = (body['sequences'] as unknown[]).map((s, i): SampledSequence => {
    if (!isObj(s)) bad(op, `sequences[${i}] is not an object`);
    const tokens = numbers(op, s['tokens'], `sequences[${i}].tokens`);
    // Training needs the sampler's logprob of every token; a server that leaves them out is not usable for RL.
    if (s['logprobs'] === undefined || s['logprobs'] === null) bad(op, `sequences[${i}] has no logprobs`);
    const logprobs = numbers(op, s['logprobs'], `sequences[${i}].logprobs`);
    if (logprobs.length !== tokens.length) bad(op, `sequences[${i}]: ${logprobs.length} logprobs for ${tokens.length} tokens`);
    return { tokens, logprobs, stopReason: stopReason(op, s['stop_reason']) };
  });
  const pl = body['prompt_logprobs'];
  if (pl === undefined || pl === null) return { sequences };
  const promptLogprobs = numbers(op, pl, 'prompt_logprobs').map((x) => (Number.isNaN(x) ? null : x));
  return { sequences, promptLogprobs };
}

/** Reads `model_id` of a `create_model` result. */
export function parseModelId(op: string, body: unknown): string {
  const id = isObj(body) ? body['model_id'] : undefined;
  if (typeof id !== 'string' || id === '') bad(op, 'no model_id');
  return id;
}

/** Reads a string field of a result object, or undefined. */
export function stringField(body: unknown, key: string): string | undefined {
  const v = isObj(body) ? body[key] : undefined;
  return typeof v === 'string' && v !== '' ? v : undefined;
}
