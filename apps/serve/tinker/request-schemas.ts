/**
 * JSON shapes of the Tinker HTTP API as `agentrl serve` reads and writes them (the request and response types of
 * thinking-machines-lab/tinker `src/tinker/types/`),
 * and their mapping onto agentrl's `Datum` and `SamplingParams` (losses and Adam: `backend/tinker/protocol/`).
 * Schemas are loose objects: Tinker clients send extra fields (`type`, `user_metadata`, …) that are ignored.
 */
import { z } from 'zod';
import type { Datum } from 'agentrl/internal';
import type { SamplingParams } from 'agentrl/internal';
import { BackendInputError } from 'agentrl/internal';
import { userMetadataSchema } from './checkpoint-metadata.js';

/** Tinker `TensorData`: a flat array with its dtype and shape (`shape` defaults to `[data.length]`). */
export const tensorDataSchema = z.looseObject({
  data: z.array(z.number()),
  dtype: z.enum(['int64', 'float32']).optional(),
  shape: z.array(z.number().int().min(0)).optional(),
});
/** A parsed `TensorData`. */
export type TensorData = z.infer<typeof tensorDataSchema>;

const chunkSchema = z.looseObject({ type: z.string().optional(), tokens: z.array(z.number()).optional() });

/** Tinker `ModelInput`: a list of chunks; only `encoded_text` chunks are served here. */
export const modelInputSchema = z.looseObject({ chunks: z.array(chunkSchema) });

/** Tinker `Datum`. */
export const datumSchema = z.looseObject({
  model_input: modelInputSchema,
  loss_fn_inputs: z.record(z.string(), tensorDataSchema),
});
/** A parsed Tinker datum. */
export type WireDatum = z.infer<typeof datumSchema>;

/** `forward_backward_input` / `forward_input`. */
export const forwardInputSchema = z.looseObject({
  data: z.array(datumSchema),
  loss_fn: z.string(),
  /** Clip thresholds: ratios in [0, 1000]. */
  loss_fn_config: z.record(z.string(), z.number().min(0).max(1000)).nullish(),
});

const seqId = z.number().int().nullish();

/** `create_session` body. */
export const createSessionSchema = z.looseObject({ tags: z.array(z.string()).nullish(), sdk_version: z.string().nullish() });
/** `session_heartbeat` body. */
export const heartbeatSchema = z.looseObject({ session_id: z.string() });
/** Tinker `LoraConfig` (recorded and reported; the embedded engine trains every weight). */
export const loraConfigSchema = z.looseObject({
  rank: z.number().int().min(0).nullish(),
  seed: z.number().int().nullish(),
  train_unembed: z.boolean().nullish(),
  train_mlp: z.boolean().nullish(),
  train_attn: z.boolean().nullish(),
});
/** `create_model` body. */
export const createModelSchema = z.looseObject({
  session_id: z.string(),
  model_seq_id: z.number().int().nullish(),
  base_model: z.string().nullish(),
  lora_config: loraConfigSchema.nullish(),
  user_metadata: z.record(z.string(), z.unknown()).nullish(),
});
/** Bodies that name only a model (`get_info`, `unload_model`). */
export const modelIdSchema = z.looseObject({ model_id: z.string() });
/** `forward_backward` body (JSON). */
export const forwardBackwardSchema = z.looseObject({ model_id: z.string(), seq_id: seqId, forward_backward_input: forwardInputSchema });
/** `forward` body (no gradient). */
export const forwardSchema = z.looseObject({ model_id: z.string(), seq_id: seqId, forward_input: forwardInputSchema });
/**
 * Tinker `AdamParams`, range-checked (a value outside leaves NaN or exploded weights): `learning_rate` in [0, 1],
 * `beta1`/`beta2` in [0, 1), `eps` in (0, 1], `weight_decay` in [0, 1], `grad_clip_norm` in [0, 1e6] (0: off).
 */
export const adamParamsSchema = z.looseObject({
  learning_rate: z.number().min(0).max(1),
  beta1: z.number().min(0).lt(1).nullish(),
  beta2: z.number().min(0).lt(1).nullish(),
  eps: z.number().gt(0).max(1).nullish(),
  weight_decay: z.number().min(0).max(1).nullish(),
  grad_clip_norm: z.number().min(0).max(1e6).nullish(),
});
/** `optim_step` body. */
export const optimStepSchema = z.looseObject({ model_id: z.string(), seq_id: seqId, adam_params: adamParamsSchema });
/** `save_weights` body; `path` is a checkpoint name. */
export const saveWeightsSchema = z.looseObject({
  model_id: z.string(),
  seq_id: seqId,
  path: z.string().nullish(),
  overwrite: z.boolean().nullish(),
  /** SDK ≥ 0.26; listed back as `Checkpoint.user_metadata` (`checkpoint-metadata.ts`). */
  user_metadata: userMetadataSchema.nullish(),
});
/** `load_weights` body; `path` is a `tinker://…/weights/<name>` path. */
export const loadWeightsSchema = z.looseObject({ model_id: z.string(), seq_id: seqId, path: z.string(), optimizer: z.boolean().nullish() });
/** `save_weights_for_sampler` body: named with `path`, ephemeral without. */
export const saveForSamplerSchema = z.looseObject({
  model_id: z.string(),
  seq_id: seqId,
  path: z.string().nullish(),
  sampling_session_seq_id: z.number().int().nullish(),
  overwrite: z.boolean().nullish(),
  /** SDK ≥ 0.26; kept for named saves only (an unnamed one is no checkpoint). */
  user_metadata: userMetadataSchema.nullish(),
});
/** `create_sampling_session` body. */
export const createSamplingSessionSchema = z.looseObject({
  session_id: z.string(),
  sampling_session_seq_id: z.number().int().nullish(),
  base_model: z.string().nullish(),
  model_path: z.string().nullish(),
});
/** Tinker `SamplingParams`. */
export const samplingParamsSchema = z.looseObject({
  max_tokens: z.number().int().nullish(),
  seed: z.number().int().nullish(),
  stop: z.union([z.string(), z.array(z.string()), z.array(z.number())]).nullish(),
  temperature: z.number().min(0).max(100).nullish(),
  top_k: z.number().int().min(-1).nullish(),
  top_p: z.number().gt(0).max(1).nullish(),
});
/** `asample` body. */
export const sampleSchema = z.looseObject({
  sampling_session_id: z.string().nullish(),
  base_model: z.string().nullish(),
  model_path: z.string().nullish(),
  seq_id: seqId,
  num_samples: z.number().int().nullish(),
  prompt: modelInputSchema,
  sampling_params: samplingParamsSchema,
  prompt_logprobs: z.boolean().nullish(),
  topk_prompt_logprobs: z.number().int().nullish(),
  /** SDK ≥ 0.26 (`types/sample_request.py`); served only at their defaults, see `sample-options.ts`. */
  topk_sample_logprobs: z.number().int().nullish(),
  target_prompt_logprobs: tensorDataSchema.nullish(),
  record_stability_info: z.boolean().nullish(),
});
/** `retrieve_future` body. */
export const retrieveFutureSchema = z.looseObject({ request_id: z.string(), allow_metadata_only: z.boolean().nullish() });

/** Concatenated token ids of a `ModelInput`; any chunk that is not `encoded_text` is a user error. */
export function modelInputTokens(mi: z.infer<typeof modelInputSchema>, field: string): number[] {
  const out: number[] = [];
  mi.chunks.forEach((c, i) => {
    if ((c.type !== undefined && c.type !== 'encoded_text') || c.tokens === undefined) {
      throw new BackendInputError(`${field}.chunks[${i}]`, `chunk type '${c.type ?? '?'}' is not supported; only encoded_text`);
    }
    out.push(...c.tokens);
  });
  return out;
}

function vector(t: TensorData | undefined, field: string): number[] | undefined {
  if (t === undefined) return undefined;
  const shape = t.shape ?? [t.data.length];
  if (shape.length !== 1) throw new BackendInputError(field, `expected a 1-D tensor, got shape [${shape.join(', ')}]`);
  if (shape[0] !== t.data.length) throw new BackendInputError(field, `shape [${shape[0]}] does not match ${t.data.length} values`);
  return t.data;
}

/**
 * Tinker datum → agentrl `Datum`. `weights` default to ones for `cross_entropy`; `logprobs` and `advantages`
 * default to zeros. The mask is `weights ≠ 0` when `weights` are sent, else `advantages ≠ 0` (RL losses) —
 * either way the token-sum loss equals Tinker's unmasked sum, because positions with `A = 0` / `w = 0` add 0.
 * Lengths are checked later by the engine, which names the field (`datums[i].advantages`).
 * @throws BackendInputError for a missing `target_tokens`, a non-text chunk or a non 1-D tensor.
 */
export function toDatum(d: WireDatum, i: number, lossFn: string): Datum {
  const f = `data[${i}]`;
  const modelInput = modelInputTokens(d.model_input, `${f}.model_input`);
  const inputs = d.loss_fn_inputs;
  const known = ['target_tokens', 'weights', 'advantages', 'logprobs'];
  for (const k of Object.keys(inputs)) {
    if (!known.includes(k)) throw new BackendInputError(`${f}.loss_fn_inputs.${k}`, `not supported; expected ${known.join(', ')}`);
  }
  const targetTokens = vector(inputs['target_tokens'], `${f}.loss_fn_inputs.target_tokens`);
  if (targetTokens === undefined) throw new BackendInputError(`${f}.loss_fn_inputs.target_tokens`, 'missing');
  const T = modelInput.length;
  const weights = vector(inputs['weights'], `${f}.loss_fn_inputs.weights`);
  const advantages = vector(inputs['advantages'], `${f}.loss_fn_inputs.advantages`) ?? new Array<number>(T).fill(0);
  const logprobs = vector(inputs['logprobs'], `${f}.loss_fn_inputs.logprobs`) ?? new Array<number>(T).fill(0);
  const ce = lossFn === 'cross_entropy';
  const w = weights ?? (ce ? new Array<number>(T).fill(1) : undefined);
  const mask = (w ?? advantages).map((x) => (x !== 0 ? 1 : 0));
  return { modelInput, targetTokens, logprobs, advantages, mask, ...(ce && w ? { weights: w } : {}) };
}

/**
 * Tinker `SamplingParams` → agentrl `SamplingParams`. `top_k = -1` (or 0) is off; without `max_tokens` the rest of
 * the context is the limit. String stops cannot be honoured by a token-level engine and are a user error.
 */
export function toSamplingParams(p: z.infer<typeof samplingParamsSchema>, numSamples: number, contextTokens: number): SamplingParams {
  let stop: number[] | undefined;
  if (p.stop !== undefined && p.stop !== null) {
    const arr = typeof p.stop === 'string' ? [p.stop] : p.stop;
    if (arr.some((s) => typeof s === 'string')) throw new BackendInputError('sampling_params.stop', 'stop strings are not supported; send stop token ids');
    stop = arr as number[];
  }
  return {
    numSamples,
    maxTokens: p.max_tokens ?? contextTokens,
    ...(p.temperature !== undefined && p.temperature !== null ? { temperature: p.temperature } : {}),
    ...(p.top_p !== undefined && p.top_p !== null ? { topP: p.top_p } : {}),
    ...(p.top_k !== undefined && p.top_k !== null && p.top_k > 0 ? { topK: p.top_k } : {}),
    ...(p.seed !== undefined && p.seed !== null ? { seed: p.seed } : {}),
    ...(stop ? { stop } : {}),
  };
}

/** A float32 `TensorData` of a flat vector. */
export function floatTensor(xs: readonly number[]): TensorData {
  return { data: [...xs], dtype: 'float32', shape: [xs.length] };
}

/** A `tinker://<model_id>/<kind>/<name>` path, parsed. */
export interface TinkerPath {
  readonly modelId: string;
  readonly kind: 'weights' | 'sampler_weights';
  readonly name: string;
}

/**
 * Names allowed for new checkpoints: SkyRL's rule `^[a-zA-Z0-9_-]+$` (the strictest Tinker server; no `.`), capped at
 * 128 characters because names become directory names.
 */
export const CHECKPOINT_NAME = /^[A-Za-z0-9_-]{1,128}$/;
/** {@link CHECKPOINT_NAME} in words, for error messages. */
export const CHECKPOINT_NAME_RULE = '1–128 letters, digits, _ -';
/** Names accepted inside `tinker://` paths (also those saved before the stricter rule): no `/`, not `.` or `..`. */
const PATH_NAME = /^(?!\.{1,2}$)[A-Za-z0-9._-]{1,128}$/;
/** {@link PATH_NAME} in words, for error messages. */
const PATH_NAME_RULE = '1–128 letters, digits, . _ -, not . or ..';
/** Model ids in `tinker://` paths: letters, digits, `_`, `-` (no dots, so never `.` or `..`). */
const MODEL_ID = /^[A-Za-z0-9_-]{1,128}$/;

/**
 * Parses a `tinker://<model_id>/(weights|sampler_weights)/<name>` path strictly: exactly three segments, a model id of
 * letters, digits, `_` and `-`, a name per {@link PATH_NAME}; no `..`, no empty or absolute segments, no
 * percent-escapes, query or fragment.
 * @throws BackendInputError when malformed.
 */
export function parseTinkerPath(path: string, field: string): TinkerPath {
  const m = /^tinker:\/\/([^/]+)\/(weights|sampler_weights)\/([^/]+)$/.exec(path);
  if (!m || !MODEL_ID.test(m[1]!) || !PATH_NAME.test(m[3]!)) {
    throw new BackendInputError(
      field,
      `expected tinker://<model_id>/weights/<name> or …/sampler_weights/<name> (model id: letters, digits, _ -; name: ${PATH_NAME_RULE}), got '${path.slice(0, 300)}'`,
    );
  }
  return { modelId: m[1]!, kind: m[2] as TinkerPath['kind'], name: m[3]! };
}
