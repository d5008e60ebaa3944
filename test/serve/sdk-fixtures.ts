/**
 * Requests and results of the official Tinker Python SDK, written by hand from its schema (`src/tinker/types/*`,
 * `proto/tinker_public.proto`, `lib/api_future_impl.py`) for each version range — not recorded from our own client.
 * Tokens and numbers are small and fixed so every field can be checked.
 */

/** `POST /api/v1/client/config` body (SDK ≥ 0.18: `ClientConfigRequest`, its own version string). */
export const CLIENT_CONFIG_REQUEST = { sdk_version: '0.25.0' } as const;

/** Flags the SDK reads from `/client/config`, with the types its pydantic model declares. */
export const CLIENT_CONFIG_FIELDS = {
  pjwt_auth_enabled: 'boolean',
  credential_default_source: 'string',
  proto_write_fwdbwd: 'boolean',
  proto_compress_fwdbwd: 'boolean',
  parallel_fwdbwd_chunks: 'boolean',
  fwdbwd_max_chunk_len: 'number',
  fwdbwd_max_chunk_bytes_count: 'number',
  sample_max_concurrent_requests: 'number',
  use_pyqwest_transport: 'boolean',
  create_model_via_load_weights: 'boolean',
  /** SDK ≥ 0.26 (`types/client_config_response.py`, default false). */
  sample_use_retrieve_futures: 'boolean',
} as const;

/** `create_session` as every version sends it (`CreateSessionRequest`, `exclude_none`). */
export const CREATE_SESSION = (version: string) => ({ tags: [], user_metadata: {}, sdk_version: version, type: 'create_session' });

/** `create_model` (`CreateModelRequest` with `LoraConfig`). */
export const CREATE_MODEL = (sessionId: string) => ({
  session_id: sessionId,
  model_seq_id: 0,
  base_model: 'agentrl/local',
  user_metadata: {},
  lora_config: { rank: 8, train_unembed: true, train_mlp: true, train_attn: true },
  type: 'create_model',
});

/** One datum: 4 input tokens, next-token targets, PPO inputs. */
export const DATUM = {
  tokens: [3, 1, 4, 1],
  targets: [1, 4, 1, 5],
  logprobs: [-1.5, -2.25, -0.5, -3],
  advantages: [0, 1, 1, -0.5],
} as const;

/** SDK ≤ 0.24 (JSON era): `ForwardBackwardRequest` JSON (`forward_backward_input`, `exclude_none`). */
export const FB_JSON = (modelId: string, seqId: number) => ({
  forward_backward_input: {
    data: [
      {
        model_input: { chunks: [{ tokens: [...DATUM.tokens], type: 'encoded_text' }] },
        loss_fn_inputs: {
          target_tokens: { data: [...DATUM.targets], dtype: 'int64', shape: [4] },
          logprobs: { data: [...DATUM.logprobs], dtype: 'float32', shape: [4] },
          advantages: { data: [...DATUM.advantages], dtype: 'float32', shape: [4] },
        },
      },
    ],
    loss_fn: 'ppo',
    loss_fn_config: { clip_low_threshold: 0.8, clip_high_threshold: 1.28 },
  },
  model_id: modelId,
  seq_id: seqId,
});

/** SDK ≤ 0.24: `POST /api/v1/forward` (`ForwardRequest`). */
export const FORWARD_JSON = (modelId: string, seqId: number) => {
  const fb = FB_JSON(modelId, seqId);
  return { forward_input: { ...fb.forward_backward_input, loss_fn: 'cross_entropy', loss_fn_config: undefined }, model_id: modelId, seq_id: seqId };
};

const le = (bytes: number, write: (v: DataView, i: number, x: number) => void) => (xs: readonly number[]) => {
  const b = new Uint8Array(xs.length * bytes);
  const v = new DataView(b.buffer);
  xs.forEach((x, i) => {
    write(v, i * bytes, x);
  });
  return b;
};
/** Little-endian int32 bytes (tokens), as numpy `tobytes()` on x86. */
export const i32 = le(4, (v, o, x) => v.setInt32(o, x, true));
/** Little-endian int64 bytes (int64 tensors, CSR indices, offsets). */
export const i64 = le(8, (v, o, x) => v.setBigInt64(o, BigInt(x), true));
/** Little-endian float32 bytes. */
export const f32 = le(4, (v, o, x) => v.setFloat32(o, x, true));

/**
 * SDK 0.25 (and 0.22.3+ with `proto_write_fwdbwd`): the `ForwardBackwardRequest` message as `request_conv.py` fills
 * it — tokens int32 in `encoded_text`, tensors dense in their declared dtype with their shape, DType enum values
 * FLOAT32 = 1, INT64 = 2.
 */
export const FB_PROTO = (modelId: string, seqId: number, forwardOnly: boolean) => ({
  model_id: modelId,
  seq_id: seqId,
  loss_fn: forwardOnly ? 'cross_entropy' : 'ppo',
  loss_fn_config: forwardOnly ? {} : { clip_low_threshold: 0.8, clip_high_threshold: 1.28 },
  forward_only: forwardOnly,
  data: [
    {
      model_input: [{ encoded_text: { tokens: i32(DATUM.tokens) } }],
      loss_fn_inputs: forwardOnly
        ? { target_tokens: { dense: i64(DATUM.targets), dtype: 2, shape: [4] } }
        : {
            target_tokens: { dense: i64(DATUM.targets), dtype: 2, shape: [4] },
            logprobs: { dense: f32(DATUM.logprobs), dtype: 1, shape: [4] },
            advantages: { dense: f32(DATUM.advantages), dtype: 1, shape: [4] },
          },
    },
  ],
});

/** `Accept` of `retrieve_future` polls by version, for results that have a protobuf form. */
export const POLL_ACCEPT = {
  /** ≤ 0.18.0: JSON only. */
  json: 'application/json',
  /** 0.18.1 – 0.24.x: either. */
  either: 'application/x-protobuf, application/json',
  /** 0.25: protobuf only. */
  proto: 'application/x-protobuf',
} as const;

/** `asample` (`SampleRequest`, JSON in every version). */
export const SAMPLE = (samplingSessionId: string) => ({
  num_samples: 2,
  prompt: { chunks: [{ tokens: [5, 6, 7], type: 'encoded_text' }] },
  sampling_params: { max_tokens: 3, seed: 7, temperature: 1, top_k: -1, top_p: 1 },
  sampling_session_id: samplingSessionId,
  seq_id: 0,
  prompt_logprobs: true,
  topk_prompt_logprobs: 0,
  type: 'sample',
});
