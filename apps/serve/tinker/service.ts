import { randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { z } from 'zod';
import type { SamplingClient, TrainingBackend } from 'agentrl/internal';
import { localBackend } from 'agentrl/internal';
import { workerLocalBackend } from 'agentrl/internal';
import { BackendInputError } from 'agentrl/internal';
import { parameterCount, type ModelConfig } from 'agentrl/internal';
import type { Renderer } from 'agentrl/internal';
import type { AccessTokens } from './access-tokens.js';
import { callerResolver, type ServeCaller } from './caller.js';
import { errorBody, ServeRequestError } from './errors.js';
import { checkSampleOptions } from './sample-options.js';
import { FutureStore, type FutureWait } from './future-store.js';
import { SeqQueue } from './seq-queue.js';
import { resolveServeLimits, type ServeLimits } from './serve-limits.js';
import type { CheckpointKind, StoredCheckpoint } from './stored-checkpoints.js';
import { LoadAccounting } from './load-accounting.js';
import { ModelRegistry } from './model-registry.js';
import { RunCatalog, type RunRecord } from './run-catalog.js';
import { SamplerRegistry } from './sampler-registry.js';
import { newId, SessionRegistry, type SessionState } from './session-registry.js';
import { StateFolderBytes } from './state-folder-bytes.js';
import * as w from './request-schemas.js';
import type { ServeModelRef, ServeSessionRef, TinkerServiceOptions, TinkerServiceStats } from './service-options.js';
import { checkForwardBatch, checkForwardTargets, convertForwardInput, forwardOutput } from './forward-inputs.js';
import { adamParamsFromWire } from 'agentrl/internal';
import type { ServeHost } from './serve-host.js';

export type { RunRecord } from './run-catalog.js';
export type { ServeModelRef, ServeSessionRef, TinkerServiceOptions, TinkerServiceStats } from './service-options.js';

/**
 * The Tinker API's state machine over the embedded engine: sessions, models (one `localBackend` each, an
 * independent copy of the checkpoint), samplers and futures. Transport-free; {@link registerTinkerRoutes}
 * maps HTTP onto it. Training requests of one model run one at a time in `seq_id` order; sampling runs
 * outside that queue. Every failure of a submitted request becomes a `{error, category}` result.
 */
export class TinkerService implements ServeHost {
  readonly modelName: string;
  readonly contextTokens: number;
  readonly pollTimeoutMs: number;
  /** The limits in force. */
  readonly limits: ServeLimits;
  /** The caller (principal) of a request's headers; every route passes it to the methods below. */
  readonly callerOf: (headers: IncomingHttpHeaders) => ServeCaller;
  /** The access tokens this server issues and accepts (`pjwt_auth_enabled`), when it has API keys and they are on. */
  readonly accessTokens: AccessTokens | undefined;
  readonly #o: TinkerServiceOptions;
  readonly #futures: FutureStore;
  readonly #sessions = new SessionRegistry();
  readonly #models: ModelRegistry;
  readonly #samplers: SamplerRegistry;
  /** Unfinished futures per load key (a session id, or `principal:<p>` for requests without one). */
  readonly #load: LoadAccounting;
  /** Every training run created and its checkpoints, for the REST listings (scoped to their principal). */
  readonly #runs: RunCatalog;
  /** Checkpoint bytes in the state folder (written or reserved) per session, and in all. */
  readonly #stateBytes: StateFolderBytes;
  readonly #sessionSweep: NodeJS.Timeout;
  readonly #baseBackend: TrainingBackend;
  #closed = false;

  constructor(options: TinkerServiceOptions = {}) {
    this.#o = options;
    this.modelName = options.modelName ?? 'agentrl/local';
    // Built now (the engine itself starts lazily) so bad options or an unreadable checkpoint fail at startup.
    this.#baseBackend = this.#newBackend();
    this.contextTokens = this.#baseBackend.maxContextTokens;
    this.pollTimeoutMs = options.pollTimeoutMs ?? 30_000;
    this.limits = resolveServeLimits(options.limits);
    this.#futures = new FutureStore({ ttlMs: options.futureTtlMs ?? 600_000, maxRetained: this.limits.maxRetainedResults });
    this.#samplers = new SamplerRegistry(this.modelName, this.#baseBackend);
    this.#load = new LoadAccounting(this.limits);
    this.#runs = new RunCatalog(options.stateDir);
    this.#models = new ModelRegistry({ futures: this.#futures, load: this.#load, sessions: this.#sessions, runs: this.#runs, samplers: this.#samplers });
    this.#stateBytes = new StateFolderBytes(this.limits, () => {
      // weights + Adam moments as float32, headers and config
      const cfg = (this.#baseBackend as { readonly config?: ModelConfig }).config;
      return cfg === undefined ? 0 : 12 * parameterCount(cfg) + 64 * 1024;
    });
    const tokens = options.accessTokens;
    this.accessTokens = tokens;
    this.callerOf = callerResolver(options.apiKeys ?? [], tokens ? (t) => tokens.verify(t) : undefined);
    const timeout = options.sessionTimeoutMs ?? 300_000;
    const every = Math.max(1000, Math.min(30_000, timeout / 4));
    let prev = Date.now();
    this.#sessionSweep = setInterval(() => {
      // With engineThread 'main' a long forward_backward blocks this thread and heartbeats wait unread in the
      // socket. Time the server could not listen does not count against sessions.
      const now = Date.now();
      const stall = now - prev - every;
      prev = now;
      if (stall > 1000) this.#sessions.forgiveStall(stall);
      void this.expireSessions(now - timeout);
    }, every);
    this.#sessionSweep.unref();
  }

  /** Live models (for tests and logs). */
  get modelCount(): number {
    return this.#models.size;
  }

  /** Live counters. */
  stats(): TinkerServiceStats {
    let outOfOrder = 0;
    let outOfOrderBytes = 0;
    for (const m of this.#models.all()) {
      outOfOrder += m.queue.waiting;
      outOfOrderBytes += m.queue.waitingBytes;
    }
    return {
      sessions: this.#sessions.size,
      models: this.#models.size,
      queued: this.#load.total,
      retainedResults: this.#futures.retained,
      samplerVersions: this.#samplers.versions(),
      outOfOrder,
      outOfOrderBytes,
      stateBytes: this.#stateBytes.total,
    };
  }

  /** `tinker://…/sampler_weights/<name>` paths `caller` saved (each a model id of the OpenAI-compatible `/v1`). */
  samplerPaths(caller: ServeCaller): string[] {
    return this.#samplers.pathsOf(caller);
  }

  /** `get_server_capabilities`: the one base model, with its context length. */
  capabilities(): { supported_models: { model_name: string; max_context_length: number }[] } {
    return { supported_models: [{ model_name: this.modelName, max_context_length: this.contextTokens }] };
  }

  /** `create_session`: a new session id of `caller`. */
  createSession(_body: z.infer<typeof w.createSessionSchema>, caller: ServeCaller): { type: 'create_session'; session_id: string } {
    return { type: 'create_session', session_id: this.#sessions.create(caller.principal) };
  }

  /** `session_heartbeat`. @throws ServeRequestError 404 for an unknown session (or another caller's). */
  heartbeat(body: z.infer<typeof w.heartbeatSchema>, caller: ServeCaller): { type: 'session_heartbeat' } {
    this.#sessions.of(caller, body.session_id).lastSeen = Date.now();
    return { type: 'session_heartbeat' };
  }

  /**
   * Drops sessions last seen before `cutoff` (ms since epoch) with their work: sampling calls in progress stop at the
   * next token boundary, unfinished requests of their models fail at once (`{error, category: "user"}` naming the
   * expiry) and their bodies are freed, then the models and sampling sessions are closed. An engine call already
   * running (a `forward_backward`, `optim_step` or save) runs to its end.
   */
  async expireSessions(cutoff: number): Promise<void> {
    for (const [id, s] of this.#sessions.entries()) {
      if (s.lastSeen >= cutoff) continue;
      await this.#endSession(id, s, `session ${id} expired (no heartbeat)`);
    }
  }

  async #endSession(id: string, s: SessionState, reason: string): Promise<void> {
    this.#sessions.delete(id);
    const why = new BackendInputError('session_id', reason);
    for (const ac of s.sampling) ac.abort(why);
    s.sampling.clear();
    for (const sid of s.samplingSessions) this.#samplers.forget(sid);
    for (const m of s.models) await this.#models.unload(m, reason);
  }

  // ---- Ownership: the one place that resolves a caller's session, model, sampler, future or checkpoint. ----

  /** `caller`'s session `id`: its live model ids. @throws ServeRequestError 404 when unknown or another principal's. */
  resolveSession(caller: ServeCaller, id: string): ServeSessionRef {
    return { sessionId: id, modelIds: [...this.#sessions.of(caller, id).models] };
  }

  /** `caller`'s model `id` and the session that created it. @throws ServeRequestError 404 when unknown or another principal's. */
  resolveModel(caller: ServeCaller, id: string): ServeModelRef {
    const m = this.#models.of(caller, id);
    return { modelId: m.id, sessionId: m.sessionId };
  }

  /** Ids of `caller`'s live models (for listing routes). */
  modelIds(caller: ServeCaller): string[] {
    return this.#models
      .all()
      .filter((m) => m.principal === caller.principal)
      .map((m) => m.id);
  }

  /** Ids of `caller`'s live sessions (for listing routes). */
  sessionIds(caller: ServeCaller): string[] {
    return this.#sessions.idsOf(caller);
  }

  /**
   * A sampler by reference, for `asample` and other surfaces on the same server (e.g. the OpenAI-compatible `/v1`):
   * a `sampling_session_id`, a `tinker://<model>/sampler_weights/<name>` path, or the base model name (the
   * checkpoint's weights, shared by everyone).
   * @throws ServeRequestError 404 when nothing by that reference exists for `caller` (another principal's, or released).
   */
  async resolveSampler(ref: string, caller: ServeCaller): Promise<SamplingClient> {
    return (await this.#samplers.resolve(ref, caller)).sampler;
  }

  /**
   * The directory of `caller`'s saved training state at a `tinker://<model_id>/weights/<name>` path: parsed strictly
   * ({@link w.parseTinkerPath}), inside the state folder (symbolic links resolved), saved by `caller`.
   * @throws ServeRequestError 404 when there is none for `caller`; BackendInputError for a malformed path.
   */
  async resolveCheckpoint(caller: ServeCaller, path: string, field = 'path'): Promise<string> {
    const live = this.#models.peek(w.parseTinkerPath(path, field).modelId);
    return this.#runs.resolveState(caller, path, field, live?.principal);
  }

  /** `create_model`: a future of `{model_id}`; the model is a fresh copy of the checkpoint. @throws ServeRequestError 404/400/503 */
  createModel(body: z.infer<typeof w.createModelSchema>, caller: ServeCaller): { request_id: string; model_id: string } {
    const session = this.#sessions.of(caller, body.session_id);
    if (body.base_model && body.base_model !== this.modelName) {
      throw new ServeRequestError(400, `base_model '${body.base_model}' is not served here; available: ${this.modelName}`);
    }
    const L = this.limits;
    if (session.models.size >= L.maxModelsPerSession) {
      throw new ServeRequestError(
        400,
        `session ${body.session_id} already holds ${session.models.size} models (maxModelsPerSession ${L.maxModelsPerSession}); unload one first`,
      );
    }
    if (this.#models.size >= L.maxModels)
      throw new ServeRequestError(503, `server full: ${this.#models.size} models loaded (maxModels ${L.maxModels}); retry later`, {
        category: 'server',
        retryAfterS: 30,
      });
    const done = this.#load.take(body.session_id);
    const id = newId('model');
    // lora_config.seed is not applied: every model starts from the same weights (the checkpoint, or the seeded init).
    const work = (async () => {
      const backend = this.#newBackend();
      const queue = new SeqQueue({ maxWaiting: L.maxOutOfOrderRequests, maxWaitingBytes: L.maxOutOfOrderBytes, waitTimeoutMs: L.outOfOrderTimeoutMs });
      this.#models.add({
        id,
        sessionId: body.session_id,
        principal: caller.principal,
        backend,
        queue,
        lora: body.lora_config ?? undefined,
        userMetadata: body.user_metadata ?? undefined,
        ephemeral: [],
        named: new Set(),
        unfinished: new Set(),
        checkpoints: 0,
      });
      this.#runs.add({
        id,
        sessionId: body.session_id,
        principal: caller.principal,
        baseModel: this.modelName,
        lora: body.lora_config ?? undefined,
        userMetadata: body.user_metadata ?? undefined,
        lastRequestTime: Date.now(),
      });
      session.models.add(id);
      return { type: 'create_model', model_id: id };
    })();
    return { request_id: this.#futures.create(caller.principal, work, errorBody, done), model_id: id };
  }

  /** `get_info` (synchronous). @throws ServeRequestError 404 for an unknown model. */
  getInfo(body: z.infer<typeof w.modelIdSchema>, caller: ServeCaller): Record<string, unknown> {
    const m = this.#models.of(caller, body.model_id);
    const rank = m.lora?.rank ?? undefined;
    return {
      type: 'get_info',
      model_id: m.id,
      model_name: this.modelName,
      model_data: { arch: 'agentrl-local-gpt', model_name: this.modelName, tokenizer_id: this.modelName, max_context_length: this.contextTokens },
      is_lora: m.lora !== undefined,
      ...(rank !== undefined ? { lora_rank: rank } : {}),
      ...(m.lora ? { lora_config: m.lora, training: 'full: the embedded engine trains every weight; lora_config is recorded, not applied' } : {}),
    };
  }

  /** `unload_model`: closes the model after its queued requests, and frees its sampler versions. */
  unloadModel(body: z.infer<typeof w.modelIdSchema>, caller: ServeCaller): { request_id: string; model_id: string } {
    const m = this.#models.of(caller, body.model_id);
    return this.#models.submit(caller, m, undefined, 'unload_model', body, async () => {
      await this.#models.unload(m.id);
      return { type: 'unload_model', model_id: m.id };
    });
  }

  /**
   * `forward_backward`: Tinker's token-sum loss; gradients accumulate until `optim_step`. `raw`: the protobuf body
   * `body` was decoded from (its bytes identify the request for `seq_id` duplicates).
   */
  forwardBackward(body: z.infer<typeof w.forwardBackwardSchema>, caller: ServeCaller, raw?: Uint8Array): { request_id: string; model_id: string } {
    const m = this.#models.of(caller, body.model_id);
    checkForwardBatch(body.forward_backward_input, 'forward_backward_input', this.limits, this.contextTokens);
    return this.#models.submit(caller, m, body.seq_id, 'forward_backward', raw ?? body, async () => {
      const { datums, loss } = convertForwardInput(body.forward_backward_input);
      const r = await m.backend.forwardBackward(datums, loss);
      return forwardOutput(datums, loss, r.logprobs, {
        'loss:sum': r.metrics['loss'] ?? 0,
        'tokens:sum': r.metrics['tokens'] ?? 0,
        'clip_frac:mean': r.metrics['clip_frac'] ?? 0,
        'kl_sample_train:mean': r.metrics['kl_sample_train'] ?? 0,
      });
    });
  }

  /**
   * `forward`: learner logprobs and the loss without touching gradients (one context-length pass per datum). `raw`:
   * the protobuf body (`forward_only`) `body` was decoded from.
   */
  forward(body: z.infer<typeof w.forwardSchema>, caller: ServeCaller, raw?: Uint8Array): { request_id: string; model_id: string } {
    const m = this.#models.of(caller, body.model_id);
    checkForwardBatch(body.forward_input, 'forward_input', this.limits, this.contextTokens);
    return this.#models.submit(caller, m, body.seq_id, 'forward', raw ?? body, async () => {
      const { datums, loss } = convertForwardInput(body.forward_input);
      checkForwardTargets(datums);
      const logprobs: number[][] = [];
      for (const [i, d] of datums.entries()) {
        // With engineThread 'main' the engine runs on this thread: between datums, let the HTTP layer answer.
        if (i > 0) await new Promise<void>((r) => setImmediate(r));
        const lp = await m.backend.computeLogprobs([...d.modelInput, d.targetTokens[d.targetTokens.length - 1]!]);
        logprobs.push(lp.slice(1) as number[]);
      }
      return forwardOutput(datums, loss, logprobs, {});
    });
  }

  /** `optim_step`: Adam on the accumulated gradients (hyperparameters range-checked by the wire schema). */
  optimStep(body: z.infer<typeof w.optimStepSchema>, caller: ServeCaller): { request_id: string; model_id: string } {
    const m = this.#models.of(caller, body.model_id);
    return this.#models.submit(caller, m, body.seq_id, 'optim_step', body, async () => {
      const r = await m.backend.optimStep(adamParamsFromWire(body.adam_params));
      return { type: 'optim_step', metrics: r.metrics };
    });
  }

  /**
   * `save_weights`: weights + optimizer state under the state directory; answers the `tinker://` path. With
   * `overwrite: false` a name already saved is a 409 (its `seq_id` is consumed; a resubmission gets the same answer).
   */
  saveWeights(body: z.infer<typeof w.saveWeightsSchema>, caller: ServeCaller): { request_id: string; model_id: string } {
    const m = this.#models.of(caller, body.model_id);
    const name = body.path ?? `state-${randomBytes(4).toString('hex')}`;
    if (!w.CHECKPOINT_NAME.test(name)) throw new ServeRequestError(400, `path: '${name}' is not a valid checkpoint name (${w.CHECKPOINT_NAME_RULE})`);
    if (m.checkpoints >= this.limits.maxCheckpointsPerModel) {
      throw new ServeRequestError(
        400,
        `model ${m.id} already saved ${m.checkpoints} checkpoints (maxCheckpointsPerModel ${this.limits.maxCheckpointsPerModel})`,
      );
    }
    const path = `tinker://${m.id}/weights/${name}`;
    const booking = this.#stateBytes.booking(m.sessionId);
    return this.#models.submit(
      caller,
      m,
      body.seq_id,
      'save_weights',
      body,
      async () => {
        await this.#runs.write(m, 'weights', name, body.user_metadata, booking, (dir) => m.backend.saveState(dir));
        m.checkpoints += 1;
        return { type: 'save_weights', path };
      },
      () => this.#runs.reserveName(m.id, 'weights', name, body.overwrite ?? true, { type: 'save_weights', path }),
      booking,
    );
  }

  /** `load_weights` from a `tinker://…/weights/<name>` path of this server saved by the caller (optimizer state when `optimizer`). */
  loadWeights(body: z.infer<typeof w.loadWeightsSchema>, caller: ServeCaller): { request_id: string; model_id: string } {
    const m = this.#models.of(caller, body.model_id);
    w.parseTinkerPath(body.path, 'path');
    return this.#models.submit(caller, m, body.seq_id, 'load_weights', body, async () => {
      const dir = await this.resolveCheckpoint(caller, body.path);
      await m.backend.loadState(dir, { optimizer: body.optimizer ?? false });
      return { type: 'load_weights', path: body.path, model_id: m.id };
    });
  }

  /**
   * `save_weights_for_sampler`: a frozen copy of the weights, named (`path`) or unnamed (a sampling session id).
   * Of the unnamed ones each model keeps the newest `samplerVersionsPerModel`; older ones are released once their
   * sampling calls in progress end.
   */
  saveWeightsForSampler(body: z.infer<typeof w.saveForSamplerSchema>, caller: ServeCaller): { request_id: string; model_id: string } {
    const m = this.#models.of(caller, body.model_id);
    const name = body.path ?? undefined;
    if (name !== undefined && !w.CHECKPOINT_NAME.test(name))
      throw new ServeRequestError(400, `path: '${name}' is not a valid checkpoint name (${w.CHECKPOINT_NAME_RULE})`);
    const path = name === undefined ? undefined : `tinker://${m.id}/sampler_weights/${name}`;
    if (path !== undefined && !m.named.has(path) && m.named.size >= this.limits.maxNamedSamplersPerModel) {
      throw new ServeRequestError(
        400,
        `model ${m.id} already holds ${m.named.size} named sampler weights (maxNamedSamplersPerModel ${this.limits.maxNamedSamplersPerModel})`,
      );
    }
    // Only named versions are written to the state folder; unnamed ones live in memory.
    const booking = path !== undefined ? this.#stateBytes.booking(m.sessionId) : undefined;
    return this.#models.submit(
      caller,
      m,
      body.seq_id,
      'save_weights_for_sampler',
      body,
      async () => {
        const sampler = await m.backend.saveWeightsForSampler();
        if (this.#models.peek(m.id) === undefined) {
          sampler.release?.();
          throw new BackendInputError('model_id', `model '${m.id}' was unloaded`);
        }
        if (name !== undefined && path !== undefined) {
          // Named sampler weights are also written to disk, so they can be listed and downloaded.
          try {
            await this.#runs.write(m, 'sampler_weights', name, body.user_metadata, booking, (dir) => m.backend.saveState(dir));
          } catch (e) {
            sampler.release?.();
            throw e;
          }
          this.#samplers.setNamed(path, { sampler, principal: m.principal, sessionId: undefined, modelId: m.id });
          m.named.add(path);
          return { type: 'save_weights_for_sampler', path };
        }
        const id = this.#samplers.add({ sampler, principal: m.principal, sessionId: m.sessionId });
        m.ephemeral.push(id);
        while (m.ephemeral.length > this.limits.samplerVersionsPerModel) this.#samplers.release(m.ephemeral.shift()!);
        return { type: 'save_weights_for_sampler', sampling_session_id: id };
      },
      name !== undefined && path !== undefined
        ? () => this.#runs.reserveName(m.id, 'sampler_weights', name, body.overwrite ?? true, { type: 'save_weights_for_sampler', path })
        : undefined,
      booking,
    );
  }

  /** `create_sampling_session` from a named sampler path of the caller, or the base model. */
  async createSamplingSession(
    body: z.infer<typeof w.createSamplingSessionSchema>,
    caller: ServeCaller,
  ): Promise<{ type: 'create_sampling_session'; sampling_session_id: string }> {
    const session = this.#sessions.of(caller, body.session_id);
    const ref = body.model_path ?? body.base_model ?? undefined;
    if (ref === undefined) throw new ServeRequestError(400, 'one of model_path or base_model is required');
    if (body.model_path == null && body.base_model !== this.modelName) {
      throw new ServeRequestError(400, `base_model '${body.base_model}' is not served here; available: ${this.modelName}`);
    }
    if (body.model_path != null) w.parseTinkerPath(body.model_path, 'model_path');
    const target = await this.#samplers.resolve(ref, caller);
    const id = this.#samplers.add({
      sampler: target.sampler,
      principal: caller.principal,
      sessionId: body.session_id,
      aliasOf: ref,
      ...(body.model_path != null ? { modelPath: body.model_path } : {}),
    });
    session.samplingSessions.push(id);
    while (session.samplingSessions.length > this.limits.maxSamplingSessionsPerSession) this.#samplers.forget(session.samplingSessions.shift()!);
    return { type: 'create_sampling_session', sampling_session_id: id };
  }

  /** `asample`: runs beside (not behind) training; returns a future. Limits are checked before anything is allocated. */
  async sample(body: z.infer<typeof w.sampleSchema>, caller: ServeCaller): Promise<{ request_id: string }> {
    const ref = body.sampling_session_id ?? body.model_path ?? body.base_model ?? undefined;
    if (ref === undefined) throw new ServeRequestError(400, 'one of sampling_session_id, model_path or base_model is required');
    if (body.sampling_session_id == null && body.model_path == null && body.base_model !== this.modelName) {
      throw new ServeRequestError(400, `base_model '${body.base_model}' is not served here; available: ${this.modelName}`);
    }
    if (body.sampling_session_id == null && body.model_path != null) w.parseTinkerPath(body.model_path, 'model_path');
    checkSampleOptions(body);
    const entry = await this.#samplers.resolve(ref, caller);
    const L = this.limits;
    const n = body.num_samples ?? 1;
    if (n < 1 || n > L.maxNumSamples) throw new ServeRequestError(400, `num_samples: ${n} is outside [1, ${L.maxNumSamples}] (maxNumSamples)`);
    const maxTokens = body.sampling_params.max_tokens;
    if (maxTokens !== undefined && maxTokens !== null && (maxTokens < 0 || maxTokens > L.maxSampleTokens)) {
      throw new ServeRequestError(400, `sampling_params.max_tokens: ${maxTokens} is outside [0, ${L.maxSampleTokens}] (maxSampleTokens)`);
    }
    const prompt = w.modelInputTokens(body.prompt, 'prompt');
    if (prompt.length >= this.contextTokens)
      throw new ServeRequestError(400, `prompt: ${prompt.length} tokens leave no room in the context of ${this.contextTokens}`);
    const params = w.toSamplingParams(body.sampling_params, n, Math.min(this.contextTokens, L.maxSampleTokens));
    const done = this.#load.take(entry.sessionId ?? `principal:${caller.principal}`);
    // A sampler of a session stops (at the next token boundary) when the session expires or the server closes.
    const session = entry.sessionId === undefined ? undefined : this.#sessions.peek(entry.sessionId);
    const ac = new AbortController();
    session?.sampling.add(ac);
    const work = (async () => {
      try {
        const seqs = await entry.sampler.sample(prompt, { ...params, signal: ac.signal });
        const promptLogprobs = body.prompt_logprobs ? await entry.sampler.computeLogprobs(prompt) : undefined;
        return {
          type: 'sample',
          sequences: seqs.map((s) => ({ tokens: [...s.tokens], logprobs: [...s.logprobs], stop_reason: s.stopReason })),
          ...(promptLogprobs ? { prompt_logprobs: promptLogprobs } : {}),
        };
      } finally {
        session?.sampling.delete(ac);
      }
    })();
    return { request_id: this.#futures.create(caller.principal, work, errorBody, done) };
  }

  // ---- REST queries (`rest-routes.ts`): every listing and lookup is scoped to `caller`; another's answers 404. ----

  /** The training runs `caller` created (also unloaded ones: their checkpoints stay), newest first. */
  trainingRuns(caller: ServeCaller): RunRecord[] {
    return this.#runs.list(caller);
  }

  /** One run of `caller`. @throws ServeRequestError 404 when there is none by that id (or it is another principal's). */
  trainingRun(caller: ServeCaller, id: string): RunRecord {
    return this.#runs.get(caller, id);
  }

  /**
   * Checkpoints of `caller`'s run `id` on disk, oldest first; only those inside the state folder (symbolic links
   * resolved), like {@link resolveCheckpoint}. @throws ServeRequestError 404 for an unknown run.
   */
  checkpoints(caller: ServeCaller, id: string): Promise<StoredCheckpoint[]> {
    return this.#runs.checkpoints(caller, id);
  }

  /** One checkpoint of `caller` by run, kind and name. @throws ServeRequestError 404 when it does not exist. */
  checkpoint(caller: ServeCaller, id: string, kind: CheckpointKind, name: string): Promise<StoredCheckpoint> {
    return this.#runs.checkpoint(caller, id, kind, name);
  }

  /**
   * Deletes a checkpoint of `caller` (its name may be saved again); named sampler weights are released too.
   * @throws ServeRequestError 404 when it does not exist.
   */
  async deleteCheckpoint(caller: ServeCaller, id: string, kind: CheckpointKind, name: string): Promise<void> {
    const freed = await this.#runs.remove(caller, id, kind, name);
    const sessionId = this.#runs.sessionOf(id);
    if (sessionId !== undefined) this.#stateBytes.add(sessionId, -freed);
    if (kind === 'sampler_weights') {
      const path = `tinker://${id}/${kind}/${name}`;
      this.#samplers.releaseNamed(path);
      this.#models.peek(id)?.named.delete(path);
    }
  }

  /** Live sessions of `caller`, with their runs and live sampling session ids. */
  sessions(caller: ServeCaller): { id: string; trainingRunIds: string[]; samplerIds: string[] }[] {
    return this.sessionIds(caller).map((id) => ({ id, trainingRunIds: this.#runs.idsOfSession(id), samplerIds: this.#samplers.idsOfSession(id) }));
  }

  /**
   * `GET /samplers/{id}`: the sampler's base model and, when it was made from saved weights, their path.
   * @throws ServeRequestError 404 when `caller` has no live sampling session by that id.
   */
  samplerInfo(caller: ServeCaller, id: string): { sampler_id: string; base_model: string; model_path?: string } {
    const e = this.#samplers.byId(caller, id);
    return { sampler_id: id, base_model: this.modelName, ...(e.modelPath !== undefined ? { model_path: e.modelPath } : {}) };
  }

  /** The served model's renderer (tokenizer + chat template of the embedded model). */
  renderer(): Promise<Renderer> {
    return this.#baseBackend.renderer();
  }

  /** `retrieve_future`: waits up to the poll timeout; another caller's request id is `unknown`. */
  retrieve(body: z.infer<typeof w.retrieveFutureSchema>, caller: ServeCaller, signal?: AbortSignal): Promise<FutureWait> {
    return this.#futures.wait(caller.principal, body.request_id, this.pollTimeoutMs, signal);
  }

  /** The directory `save_weights` writes under (created on first use). */
  stateDir(): Promise<string> {
    return this.#runs.stateDir();
  }

  /** Closes every model and sampler, wakes pending polls and removes a temporary state directory. Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#sessionSweep);
    this.#futures.close();
    for (const [id, s] of this.#sessions.entries()) await this.#endSession(id, s, 'the server is closing');
    for (const m of this.#models.all()) await this.#models.unload(m.id, 'the server is closing');
    await this.#baseBackend.close();
    await this.#samplers.close();
    await this.#runs.close();
  }

  #newBackend(): TrainingBackend {
    const make = this.#o.engineThread === 'main' ? localBackend : workerLocalBackend;
    return make({ ...this.#o.engine, ...(this.#o.checkpoint !== undefined ? { checkpoint: this.#o.checkpoint } : {}) });
  }
}
