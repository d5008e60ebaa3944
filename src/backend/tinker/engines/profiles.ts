/**
 * Engine profiles: what each Tinker-API engine really does with what `tinkerBackend` sends, ONE table in code.
 *
 * Shape (read this first; simulators in test/engines/simulators/ and docs/engines.md bind to it):
 * - {@link ENGINE_NAMES}: `'tinker' | 'skyrl-jax' | 'skyrl-fsdp' | 'skyrl-megatron' | 'tuft' | 'open-rl' | 'agentrl'`;
 *   `tinkerBackend({ engine })` also takes `'auto'` (detected from `/client/config`, see `detect.ts`).
 * - {@link ENGINE_PROFILES}`[name]`: an {@link EngineProfile} — one field per capability (losses and their config keys,
 *   loss normalisation, honoured optimizer fields, prompt-logprob alignment, sampler freezing, models per session,
 *   `unload_model`, long-poll hold, wire formats, routes, error bodies, seq_id rules), each with the source line it
 *   comes from in `sources` (a `repo@commit path:line` string, cited in docs/engines.md).
 * - `check-options.ts` turns a profile + the Trainer's options into one verdict per option: `exact`, `adapted` (what
 *   the client changes so the update is the configured one) or `refused` (a `ConfigError` naming option, engine, why).
 * Facts are read from the engines' public source at the commits in `source`; nothing here was run on a real engine.
 */
import type { NativeLossKind } from '../../../types/loss-config.js';

/** Engines with a profile. */
export const ENGINE_NAMES = ['tinker', 'skyrl-jax', 'skyrl-fsdp', 'skyrl-megatron', 'tuft', 'open-rl', 'agentrl'] as const;
/** An engine with a profile. */
export type EngineName = (typeof ENGINE_NAMES)[number];
/** `tinkerBackend({ engine })`: a profile, or `'auto'` (detected; hosted Tinker when nothing tells). */
export type EngineOption = EngineName | 'auto';

/** Adam fields of `optim_step`'s `adam_params`, as agentrl names them. */
export const ADAM_FIELDS = ['learningRate', 'beta1', 'beta2', 'eps', 'weightDecay', 'gradClipNorm'] as const;
/** One Adam field. */
export type AdamField = (typeof ADAM_FIELDS)[number];

/** A native `loss_fn` on an engine: supported with these `loss_fn_config` keys, or not (with why). */
export type EngineLoss = { readonly supported: true; readonly configKeys: readonly string[] } | { readonly supported: false; readonly why: string };

/**
 * How the engine reduces per-token losses into the gradient of one optimizer step.
 * - `'token-sum'`: plain sum over tokens and datums (Tinker's documented reduction; agentrl's plan relies on it).
 * - `'sequence-mean'`: per datum `Σ_t ℓ_t / max(Σ_t w_t, 1e-9)` (w = `weights`, ones over the whole datum when absent),
 *   then the mean over every datum of every forward_backward since the last optim_step (zero-weight ones included).
 */
export type LossNormalisation = 'token-sum' | 'sequence-mean';

/** What sampling from an older sampler checkpoint does. */
export type SamplerFreezing =
  /** Each sampler keeps the weights it was saved with. */
  | 'frozen'
  /** Every sampler samples the current policy (checkpoint ignored): a step-0 reference drifts with training. */
  | 'current-policy'
  /** Sampling an older checkpoint loads it into the training adapter slot: trained weights are rolled back. */
  | 'loads-into-training-slot';

/** Everything `tinkerBackend` needs to know about one engine. */
export interface EngineProfile {
  /** The profile's key in {@link ENGINE_PROFILES}, as given to `tinkerBackend({ engine })`. */
  readonly name: EngineName;
  /** Human name, e.g. `SkyRL (JAX backend)`. */
  readonly title: string;
  /** Where the facts come from: `owner/repo@commit` (or the docs/SDK for hosted Tinker). */
  readonly source: string;
  /** Native `loss_fn`s. */
  readonly losses: Readonly<Record<NativeLossKind, EngineLoss>>;
  /** Loss reduction (see {@link LossNormalisation}). */
  readonly normalisation: LossNormalisation;
  /**
   * Adam fields the engine applies from `adam_params`; the others come from the server's own config, with the values in
   * `fixedOptimizer` when its defaults are in use.
   */
  readonly honouredOptimizer: readonly AdamField[];
  /** Server-side values of the Adam fields it does not take from the request (its config defaults). */
  readonly fixedOptimizer: Readonly<Partial<Record<AdamField, number>>>;
  /** Prompt logprobs returned for an N-token prompt: `N` (entry 0 `null`), `N-1` (entry 0 missing), or none. */
  readonly promptLogprobs: 'N' | 'N-1' | 'none';
  /** `POST /api/v1/forward` (or the proto `forward_only` flag) exists: forward passes without gradients. */
  readonly forward: boolean;
  /** See {@link SamplerFreezing}. */
  readonly samplers: SamplerFreezing;
  /** Sampler logprobs: `'reported'`, or `'zeros-if-missing'` (inference engine gave none → zeros with a log line). */
  readonly samplerLogprobs: 'reported' | 'zeros-if-missing';
  /** Training models one server holds at once for agentrl (`Infinity`: no limit agentrl reaches). */
  readonly modelsPerServer: number;
  /** `POST /api/v1/unload_model` exists. */
  readonly unloadModel: boolean;
  /** How long the server holds a `retrieve_future` poll before answering, ms, and what it answers then. */
  readonly pollHold: { readonly ms: number; readonly answer: '408' | 'try_again' };
  /** Wire formats of the `forward_backward` body. */
  readonly wire: { readonly json: boolean; readonly protobuf: boolean };
  /**
   * Checkpoint REST routes (`null`: absent): the caller's checkpoint list, and the archive of one checkpoint with
   * `{run}`, `{kind}` (`weights` | `sampler_weights`) and `{name}` placeholders, for the kinds it serves.
   */
  readonly checkpointRoutes: {
    readonly listForUser: string | null;
    readonly archive: { readonly path: string; readonly kinds: readonly ('weights' | 'sampler_weights')[] } | null;
  };
  /** How a refused/failed request is answered: statuses and the body field that carries the message. */
  readonly errors: { readonly statuses: readonly number[]; readonly field: 'detail' | 'error' | 'error_message' };
  /**
   * `seq_id` rules: `ordered` — the server runs a model's requests strictly in `seq_id` order (a missing id blocks the
   * later ones); `refusedConsumes` — a request the server refused at submit (4xx) still used up its id;
   * `failedConsumes` — a request accepted but failed in its future used up its id.
   */
  readonly seq: { readonly ordered: boolean; readonly refusedConsumes: boolean; readonly failedConsumes: boolean };
  /** Source line (`path:line`, relative to `source`) of each fact, by field name. */
  readonly sources: Readonly<Partial<Record<Exclude<keyof EngineProfile, 'name' | 'title' | 'source' | 'sources' | 'start'>, string>>>;
  /** How to start it for agentrl (commands from the engine's README), and the timeouts to set. */
  readonly start: readonly string[];
}

const ALL_FOUR = {
  cross_entropy: { supported: true, configKeys: [] },
  importance_sampling: { supported: true, configKeys: [] },
  ppo: { supported: true, configKeys: ['clip_low_threshold', 'clip_high_threshold'] },
  cispo: { supported: true, configKeys: ['clip_low_threshold', 'clip_high_threshold'] },
} as const satisfies Record<NativeLossKind, EngineLoss>;

const SKYRL = 'NovaSky-AI/SkyRL@a956457';

const skyrlShared = {
  source: SKYRL,
  forward: true,
  unloadModel: true,
  pollHold: { ms: 300_000, answer: '408' },
  wire: { json: true, protobuf: true },
  checkpointRoutes: { listForUser: null, archive: { path: '/api/v1/training_runs/{run}/checkpoints/{name}/archive', kinds: ['sampler_weights'] } },
  errors: { statuses: [400, 404, 408, 409, 422, 500], field: 'detail' },
  // api.py create_future: no ordering; (model_id, seq_id) is recorded only once a future exists (a refusal at submit
  // records nothing); reuse with other content → 409.
  seq: { ordered: false, refusedConsumes: false, failedConsumes: true },
} as const;

const skyrlSharedSources = {
  forward: 'skyrl/tinker/api.py:1146',
  unloadModel: 'skyrl/tinker/api.py:1025',
  pollHold: 'skyrl/tinker/api.py:70-71, 1400',
  wire: 'skyrl/tinker/api.py:1110-1115',
  checkpointRoutes: 'skyrl/tinker/api.py:1540-1548 (archive: one-segment checkpoint_id, CheckpointType.SAMPLER only; no GET /api/v1/checkpoints)',
  errors: 'skyrl/tinker/api.py:1397-1424',
  seq: 'skyrl/tinker/api.py:362-410',
} as const;

const skyrlTrain = (name: 'skyrl-fsdp' | 'skyrl-megatron', title: string, modelsPerServer: number): EngineProfile => ({
  ...skyrlShared,
  name,
  title,
  losses: {
    ...ALL_FOUR,
    cispo: {
      supported: false,
      why: "SkyRL-Train's policy-loss config has no clip thresholds for cispo: _normalize_policy_loss_request renames them for ppo/gspo/dppo only, the worker raises ValueError: Invalid fields",
    },
  },
  normalisation: 'token-sum',
  honouredOptimizer: ['learningRate'],
  fixedOptimizer: { beta1: 0.9, beta2: 0.999, eps: 1e-8, weightDecay: 0.01, gradClipNorm: 1 },
  promptLogprobs: 'N',
  samplers: 'current-policy',
  samplerLogprobs: 'zeros-if-missing',
  modelsPerServer,
  sources: {
    ...skyrlSharedSources,
    losses: 'skyrl/backends/skyrl_train_backend.py:840-870',
    normalisation: 'skyrl/backends/skyrl_train_backend.py:1006',
    honouredOptimizer: 'skyrl/backends/skyrl_train_backend.py:1030-1033',
    fixedOptimizer:
      'skyrl/train/config/config.py:186-196 (adam_betas, weight_decay, max_grad_norm); skyrl/backends/skyrl_train/distributed/fsdp_strategy.py:263-268 (torch AdamW, eps 1e-8)',
    samplers: 'skyrl/backends/skyrl_train_backend.py:1079-1095',
    samplerLogprobs: 'skyrl/backends/skyrl_train_backend.py:1185',
    modelsPerServer:
      name === 'skyrl-fsdp'
        ? 'skyrl/backends/skyrl_train/workers/worker.py register_adapter (FSDP: NotImplementedError for a second adapter)'
        : 'skyrl/backends/skyrl_train_backend.py:475-489 (more LoRA adapters, same rank and alpha)',
  },
  start: [
    `uv run --extra tinker --extra ${name === 'skyrl-fsdp' ? 'fsdp' : 'megatron'} -m skyrl.tinker.api --base-model <HF id> --backend ${name === 'skyrl-fsdp' ? 'fsdp' : 'megatron'} --port 8000 (SkyRL .claude/docs/tinker.md:20)`,
    "tinkerBackend({ engine: '" +
      name +
      "', baseUrl: 'http://<host>:8000', apiKey: 'tml-dummy', … }) — polls are held 300 s: timeouts.pollMs defaults to 315 000 for this engine",
  ],
});

/** The profiles, by engine. */
export const ENGINE_PROFILES: Readonly<Record<EngineName, EngineProfile>> = {
  tinker: {
    name: 'tinker',
    title: 'Hosted Tinker (Thinking Machines)',
    source: 'thinking-machines-lab/tinker@d595dc2 (SDK 0.25) + docs',
    losses: ALL_FOUR,
    normalisation: 'token-sum',
    honouredOptimizer: [...ADAM_FIELDS],
    fixedOptimizer: {},
    promptLogprobs: 'N',
    forward: true,
    samplers: 'frozen',
    samplerLogprobs: 'reported',
    modelsPerServer: Infinity,
    unloadModel: true,
    pollHold: { ms: 30_000, answer: 'try_again' },
    wire: { json: true, protobuf: true },
    checkpointRoutes: {
      listForUser: '/api/v1/checkpoints',
      archive: { path: '/api/v1/training_runs/{run}/checkpoints/{kind}/{name}/archive', kinds: ['weights', 'sampler_weights'] },
    },
    errors: { statuses: [400, 404, 409, 410, 422, 429, 500], field: 'detail' },
    seq: { ordered: true, refusedConsumes: false, failedConsumes: true },
    sources: {
      normalisation: 'docs: losses ("the loss is a sum over tokens")',
      pollHold: 'not published: the SDK gives up on a poll after 45 s (src/tinker/lib/api_future_impl.py), so the service answers sooner; 30 s assumed',
      seq: 'SDK 0.25: a refused seq_id leaves later ones waiting (observed running the public thinking-machines-lab/tinker SDK 0.25.0)',
      wire: 'src/tinker/lib/api_future_impl.py (proto results), resources/training.py',
    },
    start: ["tinkerBackend({ engine: 'tinker', apiKey: process.env.TINKER_API_KEY, … }) (default base URL)"],
  },
  'skyrl-jax': {
    ...skyrlShared,
    name: 'skyrl-jax',
    title: 'SkyRL Tinker API, JAX backend',
    losses: ALL_FOUR,
    normalisation: 'sequence-mean',
    honouredOptimizer: ['learningRate', 'beta1', 'beta2', 'eps', 'weightDecay'],
    fixedOptimizer: { gradClipNorm: 0 },
    promptLogprobs: 'N-1',
    samplers: 'loads-into-training-slot',
    samplerLogprobs: 'reported',
    modelsPerServer: 32,
    sources: {
      ...skyrlSharedSources,
      losses: 'skyrl/tinker/api.py:611-618; skyrl/tinker/loss_fns.py:25-91',
      normalisation: 'skyrl/backends/jax.py:406 (per sequence), 176-185 (get_mean); skyrl/tinker/api.py:592-593 (ones)',
      honouredOptimizer: 'skyrl/backends/jax.py:806-818',
      fixedOptimizer: 'skyrl/backends/jax.py:594 (optax.adamw, no clip)',
      promptLogprobs: 'skyrl/tx/utils/generator.py:438',
      samplers: 'skyrl/backends/jax.py:1009-1040',
      modelsPerServer: 'skyrl/backends/jax.py:70 (max_lora_adapters 32)',
    },
    start: [
      'uv run --extra gpu --extra tinker -m skyrl.tinker.api --base-model <HF id> (the default --backend is jax; SkyRL skyrl-tx/README.md:67)',
      "tinkerBackend({ engine: 'skyrl-jax', baseUrl: 'http://<host>:8000', apiKey: 'tml-dummy', … }) — polls are held 300 s: timeouts.pollMs defaults to 315 000; first steps JIT-compile, keep timeouts.silenceMs ≥ 600 000",
    ],
  },
  'skyrl-fsdp': skyrlTrain('skyrl-fsdp', 'SkyRL Tinker API, FSDP backend (SkyRL-Train)', 1),
  'skyrl-megatron': skyrlTrain('skyrl-megatron', 'SkyRL Tinker API, Megatron backend (SkyRL-Train)', Infinity),
  tuft: {
    name: 'tuft',
    title: 'TuFT (agentscope-ai)',
    source: 'agentscope-ai/TuFT@102eefd',
    losses: ALL_FOUR,
    normalisation: 'token-sum',
    honouredOptimizer: [...ADAM_FIELDS],
    fixedOptimizer: {},
    promptLogprobs: 'N',
    forward: true,
    samplers: 'frozen',
    samplerLogprobs: 'reported',
    modelsPerServer: Infinity,
    unloadModel: true,
    pollHold: { ms: 120_000, answer: 'try_again' },
    wire: { json: false, protobuf: true },
    checkpointRoutes: { listForUser: '/api/v1/checkpoints', archive: null },
    errors: { statuses: [400, 404, 409, 413, 415, 422, 500], field: 'detail' },
    // training_controller.py _with_sequence_guard: seq_id must equal next_seq_id; it advances only after the
    // operation succeeded, so neither a refused nor a failed request uses up its id (and the next must reuse it).
    seq: { ordered: true, refusedConsumes: false, failedConsumes: false },
    sources: {
      losses: 'src/tuft/loss_fn/__init__.py; src/tuft/loss_fn/{ppo,cispo}.py',
      wire: 'src/tuft/server.py:305-348 (415 for non-protobuf forward_backward)',
      pollHold: 'src/tuft/futures.py:451-490 (120 s, then TryAgainResponse)',
      errors: 'src/tuft/server.py:582-615 (terminal failure → 422 {detail})',
      seq: 'src/tuft/training_controller.py:380-398',
      unloadModel: 'src/tuft/server.py:261-282',
      checkpointRoutes: 'src/tuft/server.py:656-680',
    },
    start: [
      'uv pip install "tuft>=0.1.8" && tuft launch --port 10610 --config tuft_config.yaml (TuFT README.md:277-288)',
      "tinkerBackend({ engine: 'tuft', baseUrl: 'http://<host>:10610', … }) — polls held 120 s: timeouts.pollMs defaults to 135 000",
    ],
  },
  'open-rl': {
    name: 'open-rl',
    title: 'open-rl (gke-labs)',
    source: 'gke-labs/open-rl@bfc0f09',
    losses: {
      ...ALL_FOUR,
      ppo: {
        supported: false,
        why: "open-rl's ppo clips the ratio at 1 ± loss_fn_config.clip_range (default 0.2) and ignores clip_low_threshold / clip_high_threshold",
      },
      cispo: { supported: false, why: "open-rl's trainer matches cross_entropy, importance_sampling and ppo only (NotImplementedError otherwise)" },
    },
    normalisation: 'token-sum',
    honouredOptimizer: [...ADAM_FIELDS],
    fixedOptimizer: {},
    promptLogprobs: 'none',
    forward: false,
    samplers: 'current-policy',
    samplerLogprobs: 'reported',
    modelsPerServer: Infinity,
    unloadModel: false,
    pollHold: { ms: 60_000, answer: 'try_again' },
    wire: { json: true, protobuf: false },
    checkpointRoutes: { listForUser: null, archive: null },
    errors: { statuses: [400, 404], field: 'error' },
    seq: { ordered: false, refusedConsumes: false, failedConsumes: true },
    sources: {
      losses: 'src/server/trainer.py:255-263 (kinds), 362-366 (ppo clip_range)',
      normalisation: 'src/server/trainer.py:317, 341, 379',
      honouredOptimizer:
        'src/server/trainer.py:397-430 (β1, β2, ε, weight decay taken at the first optim_step only — the Trainer never changes them; lr and grad_clip_norm every step)',
      samplers: 'src/server/trainer.py:432 (adapter re-saved after every optim_step); src/server/gateway.py:365-390 (asample by model id)',
      pollHold: 'src/server/gateway.py:231; src/server/store.py:86-99',
      errors: 'src/server/gateway.py:173-235 (400 {error} / {type: RequestFailedResponse, error_message})',
      forward: 'src/server/gateway.py (no /api/v1/forward route)',
      unloadModel: 'src/server/gateway.py (no /api/v1/unload_model route)',
    },
    start: [
      'cd src/server && BASE_MODEL=<HF id> SAMPLING_BACKEND=vllm uv run --extra gpu python -m uvicorn gateway:app --host 0.0.0.0 --port 9003, and `uv run --extra vllm python -m vllm_sampler` for the sampler (open-rl docs/configuration.md:17-30, Makefile:27-35)',
      "tinkerBackend({ engine: 'open-rl', wireFormat: 'json', … }) — polls held 60 s: timeouts.pollMs defaults to 75 000",
    ],
  },
  agentrl: {
    name: 'agentrl',
    title: 'agentrl serve (embedded engine)',
    source: 'this repository',
    losses: ALL_FOUR,
    normalisation: 'token-sum',
    honouredOptimizer: [...ADAM_FIELDS],
    fixedOptimizer: {},
    promptLogprobs: 'N',
    forward: true,
    samplers: 'frozen',
    samplerLogprobs: 'reported',
    modelsPerServer: Infinity,
    unloadModel: true,
    pollHold: { ms: 30_000, answer: 'try_again' },
    wire: { json: true, protobuf: true },
    checkpointRoutes: {
      listForUser: '/api/v1/checkpoints',
      archive: { path: '/api/v1/training_runs/{run}/checkpoints/{kind}/{name}/archive', kinds: ['weights', 'sampler_weights'] },
    },
    errors: { statuses: [400, 404, 409, 410, 413, 415, 422, 429, 500], field: 'error' },
    seq: { ordered: true, refusedConsumes: false, failedConsumes: true },
    sources: {
      errors: 'apps/serve/tinker/errors.ts errorBody ({error, category})',
      pollHold: 'apps/serve/tinker/service.ts (pollTimeoutMs 30 000, then try_again)',
      seq: 'apps/serve/tinker/seq-queue.ts (cancel: a refused request leaves its seq_id unused)',
      losses: 'src/backend/tinker/protocol/loss-fn.ts lossConfigFromWire',
      wire: 'apps/serve/tinker/client-config.ts',
    },
    start: [
      'npm run serve -- --checkpoint <dir> (agentrl serve; docs/backends.md §2c)',
      "tinkerBackend({ engine: 'agentrl', baseUrl: 'http://127.0.0.1:8000', … }) (or engine: 'auto': the server says it is agentrl)",
    ],
  },
};

/** The profile of `name`. */
export function engineProfile(name: EngineName): EngineProfile {
  return ENGINE_PROFILES[name];
}
