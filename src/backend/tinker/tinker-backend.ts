import type { Datum } from '../../types/datum.js';
import type { LossConfig } from '../../types/loss-config.js';
import type { Renderer } from '../../chat/types.js';
import { BackendInputError, BackendRequestError, BackendUnavailableError } from '../../errors/index.js';
import { ENGINE_PROFILES, type EngineProfile } from './engines/profiles.js';
import { checkEngineOptions, lossRoute, pollMsFor } from './engines/check-options.js';
import { detectEngine } from './engines/detect.js';
import { resolveCheckpointPath, writeCheckpointPointer } from './checkpoint-pointer.js';
import type { AdamParams, BackendOptionFacts, ForwardBackwardResult, OptimStepResult, OptionVerdict, SamplingClient, TrainingBackend } from '../types.js';
import { mergeForwardBackward } from './fb-result.js';
import { awaitFuture, requestIdOf, type FutureOp } from './future-polling.js';
import { jsonOf, TinkerHttp, type HttpBody } from './http.js';
import { checkLossSupported, isNativeLoss, planForwardBackward, type TinkerLossPlan } from './loss-mapping.js';
import { lossDefinition } from '../../loss/registry.js';
import { forwardBackwardCustom, WEIGHTED_CROSS_ENTROPY } from '../custom-loss.js';
import { resolveTinkerOptions, type ResolvedTinkerOptions, type TinkerBackendOptions } from './options.js';
import { decodeForwardBackwardProto } from './proto.js';
import { resolveRenderer } from './renderer-source.js';
import { checkLearnerSampling, TinkerSamplingClient } from './sampling-client.js';
import { checkBackendDatums } from '../check-datums.js';
import { SeqOrder } from './seq-order.js';
import pLimit, { type LimitFunction } from 'p-limit';
import { TinkerSession } from './session.js';
import type { TinkerServerConfig } from './server-config.js';
import { checkpointName, chunkDatums, forwardBackwardBody } from './training-ops.js';
import { adamParamsToWire } from './protocol/adam.js';
import { parseForwardBackwardJson, parseMetricsJson, parseModelId, stringField, type ForwardBackwardOutput, type WireDatum } from './json-wire.js';
import { tinkerPath as apiPath } from './protocol/routes.js';
import { InternalError } from '../../errors/internal-error.js';

/** `get_info` of the model being trained. */
export interface TinkerModelInfo {
  /** The trained model's id on the server (`model_id`). */
  readonly modelId: string;
  /** The server's answer as sent (`model_data`, `is_lora`, `lora_rank`, …). */
  readonly raw: Readonly<Record<string, unknown>>;
}

/** A {@link TrainingBackend} over the Tinker HTTP API, with protocol-level extras. */
export interface TinkerBackend extends TrainingBackend {
  /** Always `'tinker'`. */
  readonly name: 'tinker';
  /** Server root in use. */
  readonly baseUrl: string;
  /** Creates the session and the model now (otherwise done by the first call). Returns their ids. */
  connect(): Promise<{ sessionId: string; modelId: string }>;
  /** `get_info` of the current model. */
  info(): Promise<TinkerModelInfo>;
  /**
   * Which sampling settings the learner reproduces: none besides T = 1 (or greedy T = 0) over the full vocabulary —
   * the protocol has no field to score under a tempered or truncated distribution.
   */
  readonly samplingSupport: { readonly temperature: false; readonly truncation: 'unsupported' };
  /** `GET /api/v1/get_server_capabilities`: the base models the server can train. */
  capabilities(): Promise<{ models: { name: string; maxContextLength?: number }[] }>;
  /** `tinker://…` path of the last `saveState`, if any. */
  readonly lastCheckpoint: string | undefined;
  /**
   * The profile of the engine behind the server (`options.engine`, or what `'auto'` read from `/client/config`);
   * `undefined` until `'auto'` has read it (the first call or `connect()`).
   */
  readonly engine: EngineProfile | undefined;
  /** See {@link TrainingBackend.checkOptions}: the verdicts of the engine's profile, plus `wireFormat`. */
  checkOptions(facts: BackendOptionFacts): readonly OptionVerdict[] | Promise<readonly OptionVerdict[]>;
}

interface ModelSlot {
  readonly seq: SeqOrder;
  readonly id: Promise<string>;
  /** The first `seq_id` whose submission failed for good: the server would hold every later request for it. */
  lost?: { readonly seqId: number; readonly op: string; readonly cause: unknown };
}

/**
 * A `TrainingBackend` + `SamplingClient` factory over the Tinker HTTP API (Tinker's hosted service, SkyRL's
 * `skyrl.tinker.api`, `agentrl serve`, …). Returns at once; the session (with its 10 s heartbeat) and the LoRA model
 * are created by the first call or by `connect()`. Every model request takes the next `seq_id` when it is called, so
 * concurrent calls reach the server in call order; results are long-polled with `retrieve_future`.
 * @example
 * const backend = tinkerBackend({ baseModel: 'Qwen/Qwen3-8B', renderer: 'models/Qwen3-8B', lora: { rank: 32 } });
 * const sampler = await backend.saveWeightsForSampler();
 * @throws ConfigError for invalid options (dotted paths), e.g. no API key for the hosted service.
 */
export function tinkerBackend(options: TinkerBackendOptions): TinkerBackend {
  return new TinkerTrainingBackend(resolveTinkerOptions(options));
}

class TinkerTrainingBackend implements TinkerBackend {
  readonly specificationVersion = 'v1' as const;
  readonly name = 'tinker' as const;
  readonly maxContextTokens: number;
  /**
   * The protocol's learner scores targets at temperature 1 over the whole vocabulary, with no field to ask for
   * another distribution: only untempered, untruncated sampling (T = 1, or greedy T = 0) is consistent with it.
   */
  readonly samplingSupport = { temperature: false, truncation: 'unsupported' } as const;
  readonly baseUrl: string;
  #opts: ResolvedTinkerOptions;
  readonly #http: TinkerHttp;
  /** The engine's profile: from `engine`, or (with `'auto'`) once the session has read `/client/config`. */
  #profile: EngineProfile | undefined;
  /** Backward passes held until `optimStep` on an engine that averages per sequence (see `#deferBackward`). */
  #deferred: DeferredBackward[] = [];
  #profileReady: Promise<EngineProfile> | undefined;
  /** Bumped by every `optim_step` / `load_weights` sent: samplers of an older version hold older weights. */
  #weightsVersion = 0;
  #session: Promise<TinkerSession> | undefined;
  #model: ModelSlot | undefined;
  #renderer: Promise<Renderer> | undefined;
  #lastCheckpoint: string | undefined;
  #closed = false;
  /** Send `forward_backward` bodies as protobuf (`auto`: until the server says or shows it reads only JSON). */
  #protoBodies: boolean;
  /** The server's `/client/config` once the session exists. */
  #serverConfig: TinkerServerConfig | undefined;
  /** Sampling requests in flight across this backend's samplers: the server's `sample_max_concurrent_requests`. */
  #sampleLimit: LimitFunction | undefined;

  constructor(opts: ResolvedTinkerOptions) {
    this.#protoBodies = opts.wireFormat !== 'json';
    this.#opts = opts;
    this.#http = new TinkerHttp(opts);
    this.baseUrl = opts.baseUrl;
    this.maxContextTokens = opts.maxContextTokens;
    if (opts.engine !== 'auto') this.#useProfile(ENGINE_PROFILES[opts.engine]);
  }

  /** The engine's profile, once known: the per-poll deadline above its hold, its wire format. */
  get engine(): EngineProfile | undefined {
    return this.#profile;
  }

  #useProfile(p: EngineProfile): void {
    this.#profile = p;
    if (!this.#opts.pollMsGiven) this.#opts = { ...this.#opts, timeouts: { ...this.#opts.timeouts, pollMs: pollMsFor(p) } };
    if (!p.wire.protobuf) this.#protoBodies = false;
    else if (!p.wire.json && this.#opts.wireFormat !== 'json') this.#protoBodies = true;
  }

  /**
   * The profile, as ONE promise shared by every call made before it is known: model calls wait on it in call order,
   * so they still take their `seq_id`s in call order.
   */
  #whenProfiled(): Promise<EngineProfile> {
    if (!this.#profileReady) {
      const p = this.#profileP();
      this.#profileReady = p;
      p.catch(() => {
        if (this.#profileReady === p) this.#profileReady = undefined;
      });
    }
    return this.#profileReady;
  }

  /** The engine's profile; with `engine: 'auto'` this creates the session to read it. */
  async #profileP(): Promise<EngineProfile> {
    if (this.#profile) return this.#profile;
    await this.#sessionP();
    return this.#profile as unknown as EngineProfile;
  }

  /**
   * Checks what the Trainer will ask against the engine's profile (`checkEngineOptions`), plus this backend's own
   * options (`wireFormat`). Synchronous when `engine` was given; with `'auto'` it reads the server's `/client/config`
   * first (and rejects with the `ConfigError` of a server whose engine must be named).
   */
  checkOptions(facts: BackendOptionFacts): readonly OptionVerdict[] | Promise<readonly OptionVerdict[]> {
    const verdicts = (p: EngineProfile): OptionVerdict[] => {
      const out = checkEngineOptions(p, facts);
      if (this.#opts.wireFormat === 'json' && !p.wire.json) {
        out.push({
          option: 'wireFormat',
          outcome: 'refused',
          reason: `${p.name} reads forward_backward bodies as protobuf only (JSON gets 415); use wireFormat 'auto' or 'protobuf'`,
        });
      }
      if (this.#opts.wireFormat === 'protobuf' && !p.wire.protobuf) {
        out.push({ option: 'wireFormat', outcome: 'refused', reason: `${p.name} reads JSON bodies only; use wireFormat 'auto' or 'json'` });
      }
      return out;
    };
    return this.#profile ? verdicts(this.#profile) : this.#profileP().then(verdicts);
  }

  get lastCheckpoint(): string | undefined {
    return this.#lastCheckpoint;
  }

  #ensureOpen(): void {
    if (this.#closed) throw new BackendRequestError('call', 'unknown', 'this tinker backend was closed');
  }

  #sessionP(): Promise<TinkerSession> {
    if (!this.#session) {
      const p = TinkerSession.create(this.#http, this.#opts).then(async (s) => {
        this.#serverConfig = s.config;
        if (this.#opts.wireFormat === 'auto' && s.config.protoWrite === false) this.#protoBodies = false;
        if (!this.#profile) {
          let found;
          try {
            found = detectEngine(s.config.raw, s.config.answered);
          } catch (e) {
            s.stop();
            throw e;
          }
          this.#useProfile(ENGINE_PROFILES[found.engine]);
          if (found.warning) this.#opts.onWarning({ code: 'engine_assumed', message: found.warning });
        }
        return s;
      });
      this.#session = p;
      p.catch(() => {
        if (this.#session === p) this.#session = undefined;
      });
    }
    return this.#session;
  }

  async #createModel(): Promise<string> {
    const session = await this.#sessionP();
    const l = this.#opts.lora;
    const body: HttpBody = {
      json: {
        session_id: session.id,
        model_seq_id: session.nextModelSeq(),
        base_model: this.#opts.baseModel,
        lora_config: {
          rank: l.rank,
          ...(l.seed !== undefined ? { seed: l.seed } : {}),
          train_unembed: l.trainUnembed,
          train_mlp: l.trainMlp,
          train_attn: l.trainAttn,
        },
        user_metadata: {},
        type: 'create_model',
      },
    };
    const submit = async () => requestIdOf('create_model', await this.#http.call('create_model', apiPath('create_model'), body));
    return awaitFuture(this.#http, this.#opts, await submit(), { op: 'create_model', submit, json: (b) => parseModelId('create_model', b) });
  }

  /** A fresh model (new `model_id`, its own `seq_id` counter). */
  #newSlot(): ModelSlot {
    const id = this.#createModel();
    const slot: ModelSlot = { seq: new SeqOrder(), id };
    id.catch(() => {
      if (this.#model === slot) this.#model = undefined;
    });
    return slot;
  }

  #slot(): ModelSlot {
    this.#model ??= this.#newSlot();
    return this.#model;
  }

  /**
   * Takes the next `seq_id` of the current model synchronously, submits `build(modelId, seqId)` after every earlier
   * submission, then polls its future. Resubmits the identical request (same `seq_id`) when the future expires.
   * When a submission fails for good (after its retries), the model is marked lost: later requests fail at once
   * instead of waiting on the server for the missing `seq_id`.
   */
  #modelOp<T>(
    op: string,
    build: (modelId: string, seqId: number) => { path: string; body: HttpBody } | Promise<{ path: string; body: HttpBody }>,
    decode: Omit<FutureOp<T>, 'op' | 'submit'>,
    slot = this.#slot(),
    /** A `409` on submit is this result (the SDK's rule for saves under an existing name), not an error. */
    onConflict?: (modelId: string) => T,
  ): Promise<T> {
    let submit: () => Promise<string> = () => Promise.reject(new InternalError('not submitted'));
    let conflicted: { modelId: string } | undefined;
    let sent = false;
    let usedSeq = 0;
    const requestId = slot.seq.enqueue(
      async (seqId) => {
        usedSeq = seqId;
        const modelId = await slot.id;
        if (slot.lost) {
          const l = slot.lost;
          throw new BackendRequestError(
            op,
            'unknown',
            `model ${modelId}: seq_id ${l.seqId} (${l.op}) got no answer from the server after its retries (it may never have reached it), and the server runs a model's requests in seq_id order, so it would hold this one forever; loadState() continues on a fresh model`,
            { cause: l.cause },
          );
        }
        let { path, body } = await build(modelId, seqId);
        sent = true;
        submit = async () => {
          try {
            return requestIdOf(op, await this.#http.call(op, path, body));
          } catch (e) {
            // Content negotiation: a server that refuses protobuf bodies (415, or FastAPI's 422 for a body that
            // is not JSON) gets JSON from now on, same seq_id.
            const refused = e instanceof BackendRequestError ? e.status === 415 : e instanceof BackendInputError && /422|json/i.test(e.message);
            if (!(refused && 'raw' in body && this.#protoBodies)) throw e;
            this.#protoBodies = false;
            ({ path, body } = await build(modelId, seqId));
            return requestIdOf(op, await this.#http.call(op, path, body));
          }
        };
        try {
          return await submit();
        } catch (cause) {
          if (onConflict && cause instanceof BackendRequestError && cause.status === 409) {
            conflicted = { modelId };
            return '';
          }
          // Only a request that may never have reached the server (no answer after its retries) can leave a hole in
          // the seq_ids; one the server answered (refused) reached it, and the engine's rule says whether it used the id.
          if (!answeredByServer(cause) && this.#profile?.seq.ordered !== false) slot.lost ??= { seqId, op, cause };
          throw cause;
        }
      },
      (e) => sent && (!answeredByServer(e) || seqUsedByRefusal(e, this.#profile)),
    );
    return requestId.then(async (id) => {
      if (conflicted && onConflict) return onConflict(conflicted.modelId);
      try {
        return await awaitFuture(this.#http, this.#opts, id, { op, submit: () => submit(), ...decode });
      } catch (e) {
        // TuFT advances its seq_id only when the operation succeeded: the next request takes this id again.
        if (this.#profile?.seq.failedConsumes === false && answeredByServer(e)) slot.seq.rewind(usedSeq);
        throw e;
      }
    });
  }

  #fbOp(datums: readonly WireDatum[], plan: Pick<TinkerLossPlan, 'lossFn' | 'lossFnConfig'>, forwardOnly: boolean): Promise<ForwardBackwardOutput> {
    if (forwardOnly && this.#profile?.forward === false) {
      // No forward route (open-rl): a cross_entropy forward_backward with zero weights is the same pass and adds no
      // gradient on a token-sum engine (the only kind without one).
      const zeroed = datums.map(
        (d): WireDatum => ({
          modelInput: d.modelInput,
          inputs: { target_tokens: d.inputs['target_tokens']!, weights: { dtype: 'float32', data: new Array<number>(d.modelInput.length).fill(0) } },
        }),
      );
      return this.#fbOp(zeroed, { lossFn: 'cross_entropy' }, false);
    }
    const op = forwardOnly ? 'forward' : 'forward_backward';
    return this.#modelOp(
      op,
      (modelId, seqId) => forwardBackwardBody({ modelId, seqId, datums, plan, forwardOnly, wireFormat: this.#protoBodies ? 'protobuf' : 'json' }),
      {
        json: (b) => parseForwardBackwardJson(op, b, datums.length),
        ...(this.#opts.wireFormat !== 'json' ? { proto: (bytes: Uint8Array) => decodeForwardBackwardProto(bytes, datums.length) } : {}),
      },
    );
  }

  async connect(): Promise<{ sessionId: string; modelId: string }> {
    this.#ensureOpen();
    const slot = this.#slot();
    const [session, modelId] = await Promise.all([this.#sessionP(), slot.id]);
    return { sessionId: session.id, modelId };
  }

  /**
   * Loss and gradients of `datums`, mapped onto the protocol's `loss_fn` exactly (see `planForwardBackward`):
   * chunks of ≤ `maxChunkDatums` datums, each its own `seq_id`. Metrics match `localBackend`'s: `loss` (the server's
   * `loss:sum` ÷ weight, or the same sum computed from the returned logprobs), `clip_frac`, `kl_sample_train`, `tokens`.
   * `opts.sampling` (the settings the datums were sampled with) must be untempered and untruncated: the server's
   * learner cannot score under another distribution (see {@link TinkerBackend.samplingSupport}).
   * @throws ConfigError for loss options the protocol cannot compute identically (before any request);
   *   BackendInputError for malformed datums, tempered or truncated `opts.sampling`, or a user error reported by the
   *   server; BackendUnavailableError, BackendRequestError, BackendAuthError for transport and server failures.
   */
  async forwardBackward(
    datums: readonly Datum[],
    loss: LossConfig,
    opts?: { weight?: number; sampling?: { temperature?: number; topP?: number; topK?: number }; entropyCoef?: number },
  ): Promise<ForwardBackwardResult> {
    this.#ensureOpen();
    checkLearnerSampling(opts?.sampling);
    checkBackendDatums(datums, { contextTokens: this.maxContextTokens });
    if ((opts?.entropyCoef ?? 0) !== 0) {
      throw new BackendInputError(
        'entropyCoef',
        'the Tinker API returns logprobs of the target tokens only, not the full next-token distribution, so an entropy bonus cannot be computed on this backend',
      );
    }
    const weight = opts?.weight ?? 1;
    const config = checkLossSupported(loss);
    const profile = this.#profile;
    if (!profile) return this.#whenProfiled().then(() => this.forwardBackward(datums, loss, opts));
    if (!isNativeLoss(config) || lossRoute(profile, lossDefinition(config).native?.lossFn) === 'custom') {
      // A kind without a loss_fn, or one this engine lacks (cispo on SkyRL-Train): forward + weighted cross_entropy.
      // The weighted backward carries the loss's gradient as (possibly negative) weights: not a user datum, so it
      // skips the boundary check.
      const steps = {
        forward: (d: readonly Datum[]) => this.#forwardLogprobs(d),
        weightedBackward: (d: readonly Datum[]) => this.#nativeForwardBackward(d, WEIGHTED_CROSS_ENTROPY, 1),
      };
      return forwardBackwardCustom(steps, datums, config, weight);
    }
    return this.#nativeForwardBackward(datums, loss, weight);
  }

  async #nativeForwardBackward(datums: readonly Datum[], loss: LossConfig, weight: number): Promise<ForwardBackwardResult> {
    const plan = planForwardBackward(datums, checkLossSupported(loss), weight, this.maxContextTokens);
    if (this.#profile?.normalisation === 'sequence-mean') return this.#deferBackward(datums, loss, weight, plan);
    // The server's limits apply once its /client/config is known (connect() or any earlier call).
    const c = this.#serverConfig;
    const chunks = chunkDatums(plan.datums, Math.min(this.#opts.maxChunkDatums, c?.maxChunkLen ?? Infinity), c?.maxChunkBytes);
    // All chunks take their seq_ids now, in order; results are awaited together.
    const results = await Promise.all(chunks.map((c) => this.#fbOp(c, plan, false)));
    return mergeForwardBackward({ datums, loss, weight, plan, results });
  }

  /**
   * On an engine that divides each datum's loss by its weight sum and averages over the datums of the step
   * (SkyRL-JAX), no backward can be sent before the step's datum count N is known. So: a `forward` now (the logprobs
   * and metrics of this call), and the backward held until `optimStep`, where each held datum (length T, weights one)
   * gets its advantages × T·N — the engine's `Σ_t ℓ_t / T`, averaged over N, is then the configured token sum.
   * `cross_entropy` is held as `importance_sampling` with advantages = its weights against the forward's logprobs
   * (ratio 1: the same gradient), because scaling the weights would cancel in the engine's division. Datums with no
   * gradient (all-zero advantages/weights, e.g. the rollout-correction learner pass) are not held, so not counted.
   */
  async #deferBackward(datums: readonly Datum[], loss: LossConfig, weight: number, plan: TinkerLossPlan): Promise<ForwardBackwardResult> {
    const results = await Promise.all(this.#chunks(plan.datums).map((ch) => this.#fbOp(ch, plan, true)));
    const logprobs = results.flatMap((r) => r.logprobs);
    plan.datums.forEach((d, i) => {
      const held = heldBackward(d, plan, logprobs[i] ?? []);
      if (held) this.#deferred.push(held);
    });
    // The forward's loss metric is the engine's normalised one: the loss is computed here from the logprobs.
    return mergeForwardBackward({ datums, loss, weight, plan, results: results.map((r) => ({ ...r, metrics: {} })) });
  }

  /** `datums` in chunks under the server's limits (`maxChunkDatums`, `/client/config`). */
  #chunks(datums: readonly WireDatum[]): WireDatum[][] {
    const c = this.#serverConfig;
    return chunkDatums(datums, Math.min(this.#opts.maxChunkDatums, c?.maxChunkLen ?? Infinity), c?.maxChunkBytes);
  }

  /** Sends the held backward passes (see `#deferBackward`), scaled by their count, in seq order before `optim_step`. */
  #flushDeferred(): Promise<ForwardBackwardOutput>[] {
    const held = this.#deferred;
    this.#deferred = [];
    const n = held.length;
    const groups = new Map<string, DeferredBackward[]>();
    for (const h of held) {
      const key = `${h.lossFn}:${JSON.stringify(h.lossFnConfig ?? {})}`;
      groups.set(key, [...(groups.get(key) ?? []), h]);
    }
    return [...groups.values()].flatMap((g) => {
      const plan = { lossFn: g[0]!.lossFn, ...(g[0]!.lossFnConfig ? { lossFnConfig: g[0]!.lossFnConfig } : {}) };
      const scaled = g.map(({ datum: d }): WireDatum => {
        const s = d.modelInput.length * n;
        return { modelInput: d.modelInput, inputs: { ...d.inputs, advantages: { dtype: 'float32', data: d.inputs['advantages']!.data.map((a) => a * s) } } };
      });
      return this.#chunks(scaled).map((ch) => this.#fbOp(ch, plan, false));
    });
  }

  /** Learner logprobs of `datums` from the protocol's `forward` (no gradients), for the custom-loss path. */
  async #forwardLogprobs(datums: readonly Datum[]): Promise<number[][]> {
    const plan = planForwardBackward(
      datums.map((d) => ({ ...d, weights: d.mask.map(() => 0) })),
      WEIGHTED_CROSS_ENTROPY,
      1,
      this.maxContextTokens,
    );
    const c = this.#serverConfig;
    const chunks = chunkDatums(plan.datums, Math.min(this.#opts.maxChunkDatums, c?.maxChunkLen ?? Infinity), c?.maxChunkBytes);
    const results = await Promise.all(chunks.map((ch) => this.#fbOp(ch, plan, true)));
    return results.flatMap((r) => r.logprobs.map((lp) => Array.from(lp)));
  }

  /** `optim_step` with `adam_params`; metrics are the server's plus `learning_rate`. */
  async optimStep(params: AdamParams): Promise<OptimStepResult> {
    this.#ensureOpen();
    if (!this.#profile) return this.#whenProfiled().then(() => this.optimStep(params));
    const adam = adamParamsToWire(params);
    this.#weightsVersion += 1;
    const backward = this.#deferred.length > 0 ? this.#flushDeferred() : [];
    const step = this.#modelOp(
      'optim_step',
      (modelId, seqId) => ({ path: apiPath('optim_step'), body: { json: { adam_params: adam, model_id: modelId, seq_id: seqId, type: 'optim_step' } } }),
      { json: (b) => parseMetricsJson('optim_step', b) },
    );
    const [metrics] = await Promise.all([step, Promise.all(backward)]);
    // The engines' names for the pre-clip gradient norm (SkyRL jax.py:143, skyrl_train_backend.py:1040; open-rl trainer.py).
    const gradNorm = metrics['grad_norm'] ?? metrics['skyrl.ai/grad_norm'] ?? metrics['grad_norm:mean'];
    return { metrics: { ...metrics, ...(gradNorm !== undefined ? { grad_norm: gradNorm } : {}), learning_rate: params.learningRate } };
  }

  /**
   * `save_weights_for_sampler` in ephemeral mode (no name; a `sampling_session_seq_id` from the session): the
   * server answers with a `sampling_session_id` to sample from. A server that answers with a `path` instead gets a
   * `create_sampling_session` for it.
   */
  async saveWeightsForSampler(): Promise<SamplingClient> {
    this.#ensureOpen();
    if (!this.#profile) return this.#whenProfiled().then(() => this.saveWeightsForSampler());
    const version = this.#weightsVersion;
    const result = await this.#modelOp(
      'save_weights_for_sampler',
      async (modelId, seqId) => ({
        path: apiPath('save_weights_for_sampler'),
        body: {
          json: { model_id: modelId, seq_id: seqId, sampling_session_seq_id: (await this.#sessionP()).nextSamplingSeq(), type: 'save_weights_for_sampler' },
        },
      }),
      { json: (b) => ({ samplingSessionId: stringField(b, 'sampling_session_id'), path: stringField(b, 'path') }) },
    );
    let id = result.samplingSessionId;
    if (id === undefined && result.path !== undefined) {
      const session = await this.#sessionP();
      const a = await this.#http.call('create_sampling_session', apiPath('create_sampling_session'), {
        json: { session_id: session.id, sampling_session_seq_id: session.nextSamplingSeq(), model_path: result.path, type: 'create_sampling_session' },
      });
      id = stringField(jsonOf(a), 'sampling_session_id');
    }
    if (id === undefined) throw new BackendRequestError('save_weights_for_sampler', 'unknown', 'result has neither sampling_session_id nor path');
    const session = await this.#sessionP();
    this.#sampleLimit ??= pLimit(session.config.sampleMaxConcurrent);
    // SkyRL-JAX loads a sampler's checkpoint into the training adapter slot when it is sampled: a sampler of older
    // weights than the training ones would roll them back, so it refuses to sample once the weights have moved on.
    const current = this.#profile?.samplers === 'loads-into-training-slot' ? () => this.#weightsVersion === version : undefined;
    return new TinkerSamplingClient(this.#http, this.#opts, id, this.#sampleLimit, this.#profile, current);
  }

  /**
   * `save_weights` (weights + optimizer state) under a name derived from `path`. A `tinker://` path is returned by the
   * server and written to `path/tinker-checkpoint.json`, so `loadState(path)` finds it later (also from another
   * process); {@link TinkerBackend.lastCheckpoint} holds it too.
   * @throws CheckpointError when the pointer file cannot be written.
   */
  async saveState(path: string): Promise<void> {
    this.#ensureOpen();
    if (!this.#profile) return this.#whenProfiled().then(() => this.saveState(path));
    const name = checkpointName(path);
    const slot = this.#slot();
    // `overwrite: false` as the SDK (≥ 0.22): a resubmitted save after a lost answer is then a 409, which — like the
    // SDK — means the checkpoint exists under that name: its path is the result.
    const saved = await this.#modelOp(
      'save_weights',
      (modelId, seqId) => ({
        path: apiPath('save_weights'),
        body: { json: { model_id: modelId, path: name, seq_id: seqId, overwrite: false, type: 'save_weights' } },
      }),
      { json: (b) => stringField(b, 'path') },
      slot,
      (modelId) => {
        this.#opts.onWarning({
          code: 'server_notice',
          message: `save_weights: a checkpoint named '${name}' already exists on ${this.baseUrl}; kept it (tinker://${modelId}/weights/${name}) — save under a new path to keep newer weights`,
        });
        return `tinker://${modelId}/weights/${name}`;
      },
    );
    const modelId = await slot.id;
    const tinkerPath = saved ?? `tinker://${modelId}/weights/${name}`;
    this.#lastCheckpoint = tinkerPath;
    if (path.startsWith('tinker://')) return;
    await writeCheckpointPointer(path, { tinker_path: tinkerPath, model_id: modelId, base_model: this.#opts.baseModel, base_url: this.baseUrl });
  }

  /**
   * `load_weights` from a `tinker://…/weights/…` path, or from a directory written by `saveState`. Servers accept
   * `load_weights` only as a model's first request, so unless the current model has taken no request yet, a new
   * model is created (`create_model`, new `seq_id` counter) and loaded; later calls use it.
   * @throws CheckpointError when the directory holds no `tinker-checkpoint.json`.
   */
  async loadState(path: string, opts?: { optimizer?: boolean }): Promise<void> {
    this.#ensureOpen();
    const tinkerPath = await resolveCheckpointPath(path);
    if (this.#model === undefined || this.#model.seq.issued > 0) {
      const old = this.#model;
      // An engine that holds one model (SkyRL-Train: a second raises NotImplementedError) gets the old one unloaded first.
      if (old && this.#holdsFewModels(await this.#profileP())) await this.#unload(old);
      this.#model = this.#newSlot();
    }
    const optimizer = opts?.optimizer ?? true;
    this.#weightsVersion += 1;
    await this.#modelOp(
      'load_weights',
      (modelId, seqId) => ({
        path: apiPath('load_weights'),
        body: { json: { model_id: modelId, path: tinkerPath, optimizer, seq_id: seqId, type: 'load_weights' } },
      }),
      { json: () => undefined },
    );
  }

  /** Logprobs of `tokens` under the current weights (entry 0 `null`): a `forward` pass with `cross_entropy`. */
  async computeLogprobs(tokens: readonly number[]): Promise<(number | null)[]> {
    this.#ensureOpen();
    if (!this.#profile) return this.#whenProfiled().then(() => this.computeLogprobs(tokens));
    if (tokens.length === 0) return [];
    if (tokens.length === 1) return [null];
    const T = tokens.length - 1;
    const datum: WireDatum = {
      modelInput: tokens.slice(0, T),
      inputs: { target_tokens: { dtype: 'int64', data: tokens.slice(1) }, weights: { dtype: 'float32', data: new Array<number>(T).fill(0) } },
    };
    const out = await this.#fbOp([datum], { lossFn: 'cross_entropy' }, true);
    return [null, ...out.logprobs[0]!];
  }

  #holdsFewModels(p: EngineProfile | undefined): boolean {
    return p !== undefined && Number.isFinite(p.modelsPerServer) && p.unloadModel;
  }

  /**
   * `unload_model` of `slot`'s model once its requests have been sent (the engine frees it for the next one). A failure
   * is a warning: the next `create_model` then reports what the engine says.
   */
  async #unload(slot: ModelSlot): Promise<void> {
    try {
      await slot.seq.enqueue(
        async () => undefined,
        () => false,
      );
      const modelId = await slot.id;
      const a = await this.#http.call('unload_model', apiPath('unload_model'), { json: { model_id: modelId, type: 'unload_model' } });
      const body = jsonOf(a) as Record<string, unknown> | undefined;
      if (body?.['request_id'] !== undefined || body?.['future_id'] !== undefined) {
        await awaitFuture(this.#http, this.#opts, requestIdOf('unload_model', a), {
          op: 'unload_model',
          submit: async () => requestIdOf('unload_model', a),
          json: () => undefined,
        });
      }
    } catch (e) {
      if (this.#closed) return;
      this.#opts.onWarning({
        code: 'server_notice',
        message: `unload_model on ${this.baseUrl} failed (${e instanceof Error ? e.message : String(e)}); the engine may refuse the next model`,
      });
    }
  }

  /** `get_info` of the current model. */
  async info(): Promise<TinkerModelInfo> {
    this.#ensureOpen();
    const modelId = await this.#slot().id;
    const a = await this.#http.call('get_info', apiPath('get_info'), { json: { model_id: modelId, type: 'get_info' } });
    const raw = jsonOf(a);
    return { modelId, raw: typeof raw === 'object' && raw !== null ? (raw as Record<string, unknown>) : {} };
  }

  async capabilities(): Promise<{ models: { name: string; maxContextLength?: number }[] }> {
    this.#ensureOpen();
    const a = await this.#http.call('get_server_capabilities', apiPath('get_server_capabilities'), undefined, { method: 'GET' });
    const list = (jsonOf(a) as { supported_models?: unknown } | undefined)?.supported_models;
    const models = (Array.isArray(list) ? list : []).flatMap((m: { model_name?: unknown; max_context_length?: unknown }) =>
      typeof m?.model_name === 'string'
        ? [{ name: m.model_name, ...(typeof m.max_context_length === 'number' ? { maxContextLength: m.max_context_length } : {}) }]
        : [],
    );
    return { models };
  }

  renderer(): Promise<Renderer> {
    this.#renderer ??= resolveRenderer(this.#opts.renderer);
    return this.#renderer;
  }

  /**
   * Stops the heartbeat, ends every wait and request in flight (they reject with `BackendRequestError`) and closes
   * the built-in HTTP dispatcher. Samplers made by this backend stop working too.
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    // An engine that holds few models keeps this one until its session expires (SkyRL: 300 s without heartbeat),
    // refusing the next run's model until then: unload it (bounded wait; best effort).
    const model = this.#model;
    if (model && this.#holdsFewModels(this.#profile)) {
      await Promise.race([this.#unload(model), new Promise<void>((r) => setTimeout(r, 5_000).unref())]);
    }
    this.#closed = true;
    const session = this.#session;
    await this.#http.close(new BackendRequestError('call', 'unknown', 'this tinker backend was closed'));
    if (session) await session.then((s) => s.stop()).catch(() => undefined);
  }
}

/**
 * Whether `e` is the server's answer (a refusal with a status or an error body), or an error raised before the request
 * was sent: either way no `seq_id` hole. `BackendUnavailableError` (no usable answer after the retries: the request may
 * or may not have reached the server) is the only uncertain case.
 */
function answeredByServer(e: unknown): boolean {
  return !(e instanceof BackendUnavailableError);
}

/**
 * Whether a refusal the server answered used up its `seq_id`: a `409` says the id is taken on the server (reused with
 * other content); otherwise the engine's rule ({@link EngineProfile.seq}`.refusedConsumes`; every profiled engine
 * leaves a refused request's id unused — when the engine is not known yet, neither does this).
 */
function seqUsedByRefusal(e: unknown, profile: EngineProfile | undefined): boolean {
  if (e instanceof BackendRequestError && e.status === 409) return true;
  return profile?.seq.refusedConsumes ?? false;
}

/** One datum's backward held until `optimStep` on a per-sequence-mean engine (`#deferBackward`). */
interface DeferredBackward {
  readonly lossFn: TinkerLossPlan['lossFn'];
  readonly lossFnConfig?: Readonly<Record<string, number>>;
  /** Weights one over the datum; advantages not yet scaled by T·N. */
  readonly datum: WireDatum;
}

/** The held form of one planned wire datum (see `#deferBackward`), or `undefined` when it carries no gradient. */
function heldBackward(d: WireDatum, plan: TinkerLossPlan, forwardLogprobs: readonly number[]): DeferredBackward | undefined {
  const T = d.modelInput.length;
  const ones = { dtype: 'float32' as const, data: new Array<number>(T).fill(1) };
  const target = d.inputs['target_tokens']!;
  if (plan.lossFn === 'cross_entropy') {
    const w = d.inputs['weights']?.data ?? [];
    if (w.every((x) => x === 0)) return undefined;
    return {
      lossFn: 'importance_sampling',
      datum: {
        modelInput: d.modelInput,
        inputs: {
          target_tokens: target,
          logprobs: { dtype: 'float32', data: Array.from(forwardLogprobs) },
          advantages: { dtype: 'float32', data: Array.from(w) },
          weights: ones,
        },
      },
    };
  }
  const a = d.inputs['advantages']?.data ?? [];
  if (a.every((x) => x === 0)) return undefined;
  return {
    lossFn: plan.lossFn,
    ...(plan.lossFnConfig ? { lossFnConfig: plan.lossFnConfig } : {}),
    datum: { modelInput: d.modelInput, inputs: { ...d.inputs, weights: ones } },
  };
}
