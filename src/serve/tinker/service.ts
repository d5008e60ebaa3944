import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, realpath, rm, stat, writeFile } from 'node:fs/promises';
import type { IncomingHttpHeaders } from 'node:http';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import type { z } from 'zod';
import type { SamplingClient, TrainingBackend } from '../../backend/types.js';
import { localBackend, type LocalBackendOptions } from '../../backend/local/index.js';
import { workerLocalBackend } from '../../backend/local/worker/worker-backend.js';
import { BackendInputError } from '../../errors/index.js';
import { parameterCount, type ModelConfig } from '../../backend/local/model-config.js';
import { perTokenLoss } from '../../loss/index.js';
import type { Datum } from '../../types/datum.js';
import type { Renderer } from '../../chat/types.js';
import type { LossConfig } from '../../types/loss-config.js';
import type { AccessTokens } from './access-tokens.js';
import { callerResolver, principalTag, type ServeCaller } from './caller.js';
import { errorBody, ServeRequestError } from './errors.js';
import { checkSampleOptions } from './sample-options.js';
import { FutureStore, type FutureBody, type FutureWait } from './futures.js';
import { SeqQueue } from './seq-queue.js';
import { resolveServeLimits, type ServeLimits } from './serve-limits.js';
import { listStoredCheckpoints, removeStoredCheckpoint, type CheckpointKind, type StoredCheckpoint } from './checkpoint-store.js';
import { writeCheckpointMetadata } from './checkpoint-metadata.js';
import * as w from './wire.js';
import { adamParamsFromWire } from '../../backend/tinker/protocol/adam.js';
import { lossConfigFromWire } from '../../backend/tinker/protocol/loss-fn.js';

/** Options of {@link TinkerService}; see {@link createServeApp} for the documented public form. */
export interface TinkerServiceOptions {
  /** A `saveState` directory every created model starts from; without it, fresh weights of the default shape. */
  readonly checkpoint?: string;
  /** The one base model name this server offers. @default 'agentrl/local' */
  readonly modelName?: string;
  /** Where `save_weights` writes; @default a fresh temporary directory, removed by `close()`. */
  readonly stateDir?: string;
  /** Engine options passed to every `localBackend` (not `checkpoint`). */
  readonly engine?: Omit<LocalBackendOptions, 'checkpoint'>;
  /** How long `retrieve_future` holds a poll open before answering `try_again`, ms. @default 30_000 */
  readonly pollTimeoutMs?: number;
  /** Finished results are kept this long for (re)polls, ms. @default 600_000 */
  readonly futureTtlMs?: number;
  /** A session without a heartbeat this long is dropped with its models, ms. @default 300_000 */
  readonly sessionTimeoutMs?: number;
  /** Request and load limits ({@link ServeLimits}; defaults in `DEFAULT_SERVE_LIMITS`). */
  readonly limits?: Partial<ServeLimits>;
  /** The server's API keys: with several, each key is its own principal (see {@link ServeCaller}). @default [] */
  readonly apiKeys?: readonly string[];
  /** The access tokens exchanged for those keys (`POST /api/v1/auth/token`); each stands for its key's principal. @default none */
  readonly accessTokens?: AccessTokens;
  /**
   * Where each model's engine computes: `'worker'`, its own worker thread (the HTTP layer, heartbeats and other
   * models answer while it trains), or `'main'`, this thread (one long engine call then holds every request; for
   * benchmarks that read the engine's memory from `process.memoryUsage()`). @default 'worker'
   */
  readonly engineThread?: 'worker' | 'main';
}

interface ModelState {
  readonly id: string;
  readonly sessionId: string;
  readonly principal: string;
  readonly backend: TrainingBackend;
  readonly queue: SeqQueue;
  readonly lora: z.infer<typeof w.loraConfigSchema> | undefined;
  readonly userMetadata: Readonly<Record<string, unknown>> | undefined;
  /** Unnamed sampler versions (sampling session ids), oldest first. */
  readonly ephemeral: string[];
  /** Named sampler paths saved from this model. */
  readonly named: Set<string>;
  /** Submitted requests not finished yet: each drops its request (fails its future at once, frees its body). */
  readonly unfinished: Set<(message: string) => void>;
  checkpoints: number;
}

interface SessionState {
  readonly principal: string;
  lastSeen: number;
  readonly models: Set<string>;
  /** `create_sampling_session` ids, oldest first. */
  readonly samplingSessions: string[];
  /** Sampling calls in progress on this session's samplers: aborted when the session goes. */
  readonly sampling: Set<AbortController>;
}

/**
 * A training run as the REST surface reports it; kept after its model is unloaded (its checkpoints stay). Listed only
 * to the principal that created it.
 */
export interface RunRecord {
  readonly id: string;
  readonly sessionId: string;
  /** Who created it (the caller's principal). */
  readonly principal: string;
  readonly baseModel: string;
  readonly lora: z.infer<typeof w.loraConfigSchema> | undefined;
  readonly userMetadata: Readonly<Record<string, unknown>> | undefined;
  lastRequestTime: number;
}

/** A sampling session id or a named sampler path, and whom it belongs to. */
interface SamplerEntry {
  readonly sampler: SamplingClient;
  readonly principal: string;
  /** The session whose load it counts against (none for a named path sampled directly). */
  readonly sessionId: string | undefined;
  /** The named path or base model this id samples (a `create_sampling_session` alias). */
  readonly aliasOf?: string;
  /** The saved weights it was made from (`create_sampling_session`'s `model_path`), for `GET /samplers/{id}`. */
  readonly modelPath?: string;
}

/** A refused submission (a name conflict): the error to throw and the result its consumed `seq_id` answers. */
interface SubmitRefusal {
  readonly error: ServeRequestError;
  readonly result: FutureBody;
}

/**
 * State-folder bytes a save books: `take` reserves its estimated size (or throws the refusal) when it is admitted,
 * `commit` replaces the reservation with what was written, and `settle` (when its future settles) frees a reservation
 * never committed.
 */
interface StateBooking {
  take(): void;
  commit(writtenBytes: number, replacedBytes: number): void;
  settle(): void;
}

/** A model as {@link TinkerService.resolveModel} answers it. */
export interface ServeModelRef {
  readonly modelId: string;
  /** The session that created it. */
  readonly sessionId: string;
}

/** A session as {@link TinkerService.resolveSession} answers it. */
export interface ServeSessionRef {
  readonly sessionId: string;
  readonly modelIds: readonly string[];
}

/** Counters of a {@link TinkerService} (for tests, logs and `bench:serve-memory`). */
export interface TinkerServiceStats {
  readonly sessions: number;
  readonly models: number;
  /** Submitted futures not finished yet. */
  readonly queued: number;
  /** Finished results held for `retrieve_future`. */
  readonly retainedResults: number;
  /** Frozen sampler weight versions held (unnamed + named), not counting the base model's. */
  readonly samplerVersions: number;
  /** Requests held for a missing lower `seq_id`, and their bytes, over all models. */
  readonly outOfOrder: number;
  readonly outOfOrderBytes: number;
  /** Checkpoint bytes this server holds (or has reserved) in the state folder. */
  readonly stateBytes: number;
}

const digest = (op: string, body: string | Uint8Array): string => createHash('sha256').update(op).update(body).digest('hex');
const newId = (prefix: string): string => `${prefix}_${randomBytes(16).toString('hex')}`;

/**
 * The Tinker API's state machine over the embedded engine: sessions, models (one `localBackend` each, an
 * independent copy of the checkpoint), samplers and futures. Transport-free; {@link registerTinkerRoutes}
 * maps HTTP onto it. Training requests of one model run one at a time in `seq_id` order; sampling runs
 * outside that queue. Every failure of a submitted request becomes a `{error, category}` result.
 */
export class TinkerService {
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
  readonly #sessions = new Map<string, SessionState>();
  readonly #models = new Map<string, ModelState>();
  readonly #samplers = new Map<string, SamplerEntry>();
  readonly #namedSamplers = new Map<string, SamplerEntry & { readonly modelId: string }>();
  /** Unfinished futures per load key (a session id, or `principal:<p>` for requests without one). */
  readonly #queued = new Map<string, number>();
  #queuedTotal = 0;
  /** Every training run created, for the REST listings (scoped to their principal). */
  readonly #runs = new Map<string, RunRecord>();
  /** `<model>/<kind>/<name>` of every save submitted (reserved before it runs, so a second one conflicts at once). */
  readonly #savedNames = new Set<string>();
  readonly #sessionSweep: NodeJS.Timeout;
  readonly #baseBackend: TrainingBackend;
  #baseSampler: Promise<SamplingClient> | undefined;
  #stateDir: Promise<string> | undefined;
  #ownsStateDir = false;
  /** Checkpoint bytes in the state folder (written or reserved) per session, and in all. */
  readonly #stateBytes = new Map<string, number>();
  #stateTotal = 0;
  /** Size of the last checkpoint written (the estimate when the model shape is unknown). */
  #lastCheckpointBytes = 0;
  #closed = false;

  constructor(options: TinkerServiceOptions = {}) {
    this.#o = options;
    this.modelName = options.modelName ?? 'agentrl/local';
    // Built now (the engine itself starts lazily) so bad options or an unreadable checkpoint fail at startup.
    this.#baseBackend = this.#newBackend();
    this.contextTokens = this.#baseBackend.maxContextTokens;
    this.pollTimeoutMs = options.pollTimeoutMs ?? 30_000;
    this.limits = resolveServeLimits(options.limits);
    const tokens = options.accessTokens;
    this.accessTokens = tokens;
    this.callerOf = callerResolver(options.apiKeys ?? [], tokens ? (t) => tokens.verify(t) : undefined);
    this.#futures = new FutureStore({ ttlMs: options.futureTtlMs ?? 600_000, maxRetained: this.limits.maxRetainedResults });
    const timeout = options.sessionTimeoutMs ?? 300_000;
    const every = Math.max(1000, Math.min(30_000, timeout / 4));
    let prev = Date.now();
    this.#sessionSweep = setInterval(() => {
      // With engineThread 'main' a long forward_backward blocks this thread and heartbeats wait unread in the
      // socket. Time the server could not listen does not count against sessions.
      const now = Date.now();
      const stall = now - prev - every;
      prev = now;
      if (stall > 1000) for (const s of this.#sessions.values()) s.lastSeen += stall;
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
    for (const m of this.#models.values()) {
      outOfOrder += m.queue.waiting;
      outOfOrderBytes += m.queue.waitingBytes;
    }
    const versions = new Set<SamplingClient>();
    for (const e of this.#samplers.values()) if (e.aliasOf === undefined) versions.add(e.sampler);
    for (const e of this.#namedSamplers.values()) versions.add(e.sampler);
    return { sessions: this.#sessions.size, models: this.#models.size, queued: this.#queuedTotal, retainedResults: this.#futures.retained, samplerVersions: versions.size, outOfOrder, outOfOrderBytes, stateBytes: this.#stateTotal };
  }

  /** `tinker://…/sampler_weights/<name>` paths `caller` saved (each a model id of the OpenAI-compatible `/v1`). */
  samplerPaths(caller: ServeCaller): string[] {
    return [...this.#namedSamplers].filter(([, e]) => e.principal === caller.principal).map(([p]) => p);
  }

  /** `get_server_capabilities`: the one base model, with its context length. */
  capabilities(): { supported_models: { model_name: string; max_context_length: number }[] } {
    return { supported_models: [{ model_name: this.modelName, max_context_length: this.contextTokens }] };
  }

  /** `create_session`: a new session id of `caller`. */
  createSession(_body: z.infer<typeof w.createSessionSchema>, caller: ServeCaller): { type: 'create_session'; session_id: string } {
    const id = newId('session');
    this.#sessions.set(id, { principal: caller.principal, lastSeen: Date.now(), models: new Set(), samplingSessions: [], sampling: new Set() });
    return { type: 'create_session', session_id: id };
  }

  /** `session_heartbeat`. @throws ServeRequestError 404 for an unknown session (or another caller's). */
  heartbeat(body: z.infer<typeof w.heartbeatSchema>, caller: ServeCaller): { type: 'session_heartbeat' } {
    this.#session(caller, body.session_id).lastSeen = Date.now();
    return { type: 'session_heartbeat' };
  }

  /**
   * Drops sessions last seen before `cutoff` (ms since epoch) with their work: sampling calls in progress stop at the
   * next token boundary, unfinished requests of their models fail at once (`{error, category: "user"}` naming the
   * expiry) and their bodies are freed, then the models and sampling sessions are closed. An engine call already
   * running (a `forward_backward`, `optim_step` or save) runs to its end.
   */
  async expireSessions(cutoff: number): Promise<void> {
    for (const [id, s] of this.#sessions) {
      if (s.lastSeen >= cutoff) continue;
      await this.#endSession(id, s, `session ${id} expired (no heartbeat)`);
    }
  }

  async #endSession(id: string, s: SessionState, reason: string): Promise<void> {
    this.#sessions.delete(id);
    const why = new BackendInputError('session_id', reason);
    for (const ac of s.sampling) ac.abort(why);
    s.sampling.clear();
    for (const sid of s.samplingSessions) this.#samplers.delete(sid);
    for (const m of s.models) await this.#unload(m, reason);
  }

  // ---- Ownership: the one place that resolves a caller's session, model, sampler, future or checkpoint. ----

  /** `caller`'s session `id`: its live model ids. @throws ServeRequestError 404 when unknown or another principal's. */
  resolveSession(caller: ServeCaller, id: string): ServeSessionRef {
    return { sessionId: id, modelIds: [...this.#session(caller, id).models] };
  }

  /** `caller`'s model `id` and the session that created it. @throws ServeRequestError 404 when unknown or another principal's. */
  resolveModel(caller: ServeCaller, id: string): ServeModelRef {
    const m = this.#model(caller, id);
    return { modelId: m.id, sessionId: m.sessionId };
  }

  #session(caller: ServeCaller, id: string): SessionState {
    const s = this.#sessions.get(id);
    if (!s || s.principal !== caller.principal) throw new ServeRequestError(404, `unknown session_id '${id}' (create_session first; sessions expire without heartbeats)`);
    return s;
  }

  #model(caller: ServeCaller, id: string): ModelState {
    const m = this.#models.get(id);
    if (!m || m.principal !== caller.principal) throw new ServeRequestError(404, `unknown model_id '${id}'`);
    return m;
  }

  /** Ids of `caller`'s live models (for listing routes). */
  modelIds(caller: ServeCaller): string[] {
    return [...this.#models.values()].filter((m) => m.principal === caller.principal).map((m) => m.id);
  }

  /** Ids of `caller`'s live sessions (for listing routes). */
  sessionIds(caller: ServeCaller): string[] {
    return [...this.#sessions].filter(([, s]) => s.principal === caller.principal).map(([id]) => id);
  }

  /**
   * A sampler by reference, for `asample` and other surfaces on the same server (e.g. the OpenAI-compatible `/v1`):
   * a `sampling_session_id`, a `tinker://<model>/sampler_weights/<name>` path, or the base model name (the
   * checkpoint's weights, shared by everyone).
   * @throws ServeRequestError 404 when nothing by that reference exists for `caller` (another principal's, or released).
   */
  async resolveSampler(ref: string, caller: ServeCaller): Promise<SamplingClient> {
    return (await this.#samplerEntry(ref, caller)).sampler;
  }

  /**
   * The directory of `caller`'s saved training state at a `tinker://<model_id>/weights/<name>` path: parsed strictly
   * ({@link w.parseTinkerPath}), inside the state folder (symbolic links resolved), saved by `caller`.
   * @throws ServeRequestError 404 when there is none for `caller`; BackendInputError for a malformed path.
   */
  async resolveCheckpoint(caller: ServeCaller, path: string, field = 'path'): Promise<string> {
    const p = w.parseTinkerPath(path, field);
    if (p.kind !== 'weights') throw new BackendInputError(field, 'expected a …/weights/<name> path (training state), not sampler weights');
    const root = await realpath(await this.stateDir());
    const notFound = new ServeRequestError(404, `${field}: no saved state at ${path}`);
    const live = this.#models.get(p.modelId);
    if (live ? live.principal !== caller.principal : (await readOwner(join(root, p.modelId))) !== principalTag(caller.principal)) throw notFound;
    const dir = join(root, p.modelId, 'weights', p.name);
    if (!existsSync(join(dir, 'config.json'))) throw notFound;
    const real = await realpath(dir);
    if (!real.startsWith(root + sep)) throw notFound;
    return real;
  }

  /** `create_model`: a future of `{model_id}`; the model is a fresh copy of the checkpoint. @throws ServeRequestError 404/400/503 */
  createModel(body: z.infer<typeof w.createModelSchema>, caller: ServeCaller): { request_id: string; model_id: string } {
    const session = this.#session(caller, body.session_id);
    if (body.base_model && body.base_model !== this.modelName) {
      throw new ServeRequestError(400, `base_model '${body.base_model}' is not served here; available: ${this.modelName}`);
    }
    const L = this.limits;
    if (session.models.size >= L.maxModelsPerSession) {
      throw new ServeRequestError(400, `session ${body.session_id} already holds ${session.models.size} models (maxModelsPerSession ${L.maxModelsPerSession}); unload one first`);
    }
    if (this.#models.size >= L.maxModels) throw new ServeRequestError(503, `server full: ${this.#models.size} models loaded (maxModels ${L.maxModels}); retry later`, { category: 'server', retryAfterS: 30 });
    const done = this.#takeLoad(body.session_id);
    const id = newId('model');
    // lora_config.seed is not applied: every model starts from the same weights (the checkpoint, or the seeded init).
    const work = (async () => {
      const backend = this.#newBackend();
      const queue = new SeqQueue({ maxWaiting: L.maxOutOfOrderRequests, maxWaitingBytes: L.maxOutOfOrderBytes, waitTimeoutMs: L.outOfOrderTimeoutMs });
      this.#models.set(id, { id, sessionId: body.session_id, principal: caller.principal, backend, queue, lora: body.lora_config ?? undefined, userMetadata: body.user_metadata ?? undefined, ephemeral: [], named: new Set(), unfinished: new Set(), checkpoints: 0 });
      this.#runs.set(id, { id, sessionId: body.session_id, principal: caller.principal, baseModel: this.modelName, lora: body.lora_config ?? undefined, userMetadata: body.user_metadata ?? undefined, lastRequestTime: Date.now() });
      session.models.add(id);
      return { type: 'create_model', model_id: id };
    })();
    return { request_id: this.#futures.create(caller.principal, work, errorBody, done), model_id: id };
  }

  /** `get_info` (synchronous). @throws ServeRequestError 404 for an unknown model. */
  getInfo(body: z.infer<typeof w.modelIdSchema>, caller: ServeCaller): Record<string, unknown> {
    const m = this.#model(caller, body.model_id);
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
    const m = this.#model(caller, body.model_id);
    return this.#submit(caller, m, undefined, 'unload_model', body, async () => {
      await this.#unload(m.id);
      return { type: 'unload_model', model_id: m.id };
    });
  }

  /**
   * `forward_backward`: Tinker's token-sum loss; gradients accumulate until `optim_step`. `raw`: the protobuf body
   * `body` was decoded from (its bytes identify the request for `seq_id` duplicates).
   */
  forwardBackward(body: z.infer<typeof w.forwardBackwardSchema>, caller: ServeCaller, raw?: Uint8Array): { request_id: string; model_id: string } {
    const m = this.#model(caller, body.model_id);
    this.#checkBatch(body.forward_backward_input, 'forward_backward_input');
    return this.#submit(caller, m, body.seq_id, 'forward_backward', raw ?? body, async () => {
      const { datums, loss } = convert(body.forward_backward_input);
      const r = await m.backend.forwardBackward(datums, loss);
      return fbOutput(datums, loss, r.logprobs, { 'loss:sum': r.metrics['loss'] ?? 0, 'tokens:sum': r.metrics['tokens'] ?? 0, 'clip_frac:mean': r.metrics['clip_frac'] ?? 0, 'kl_sample_train:mean': r.metrics['kl_sample_train'] ?? 0 });
    });
  }

  /**
   * `forward`: learner logprobs and the loss without touching gradients (one context-length pass per datum). `raw`:
   * the protobuf body (`forward_only`) `body` was decoded from.
   */
  forward(body: z.infer<typeof w.forwardSchema>, caller: ServeCaller, raw?: Uint8Array): { request_id: string; model_id: string } {
    const m = this.#model(caller, body.model_id);
    this.#checkBatch(body.forward_input, 'forward_input');
    return this.#submit(caller, m, body.seq_id, 'forward', raw ?? body, async () => {
      const { datums, loss } = convert(body.forward_input);
      if (datums.length === 0) throw new BackendInputError('data', 'empty batch');
      const logprobs: number[][] = [];
      for (const [i, d] of datums.entries()) {
        const T = d.modelInput.length;
        if (T === 0) throw new BackendInputError(`data[${i}].model_input`, 'empty sequence');
        if (d.targetTokens.length !== T) throw new BackendInputError(`data[${i}].loss_fn_inputs.target_tokens`, `length ${d.targetTokens.length} != model_input length ${T}`);
        for (let t = 0; t + 1 < T; t++) {
          if (d.targetTokens[t] !== d.modelInput[t + 1]) {
            throw new BackendInputError(`data[${i}].loss_fn_inputs.target_tokens[${t}]`, 'forward needs next-token targets (target_tokens[t] = model_input[t+1])');
          }
        }
        // With engineThread 'main' the engine runs on this thread: between datums, let the HTTP layer answer.
        if (i > 0) await new Promise<void>((r) => setImmediate(r));
        const lp = await m.backend.computeLogprobs([...d.modelInput, d.targetTokens[T - 1]!]);
        logprobs.push(lp.slice(1) as number[]);
      }
      return fbOutput(datums, loss, logprobs, {});
    });
  }

  /** `optim_step`: Adam on the accumulated gradients (hyperparameters range-checked by the wire schema). */
  optimStep(body: z.infer<typeof w.optimStepSchema>, caller: ServeCaller): { request_id: string; model_id: string } {
    const m = this.#model(caller, body.model_id);
    return this.#submit(caller, m, body.seq_id, 'optim_step', body, async () => {
      const r = await m.backend.optimStep(adamParamsFromWire(body.adam_params));
      return { type: 'optim_step', metrics: r.metrics };
    });
  }

  /**
   * `save_weights`: weights + optimizer state under the state directory; answers the `tinker://` path. With
   * `overwrite: false` a name already saved is a 409 (its `seq_id` is consumed; a resubmission gets the same answer).
   */
  saveWeights(body: z.infer<typeof w.saveWeightsSchema>, caller: ServeCaller): { request_id: string; model_id: string } {
    const m = this.#model(caller, body.model_id);
    const name = body.path ?? `state-${randomBytes(4).toString('hex')}`;
    if (!w.CHECKPOINT_NAME.test(name)) throw new ServeRequestError(400, `path: '${name}' is not a valid checkpoint name (${w.CHECKPOINT_NAME_RULE})`);
    if (m.checkpoints >= this.limits.maxCheckpointsPerModel) {
      throw new ServeRequestError(400, `model ${m.id} already saved ${m.checkpoints} checkpoints (maxCheckpointsPerModel ${this.limits.maxCheckpointsPerModel})`);
    }
    const path = `tinker://${m.id}/weights/${name}`;
    const booking = this.#booking(m);
    return this.#submit(
      caller,
      m,
      body.seq_id,
      'save_weights',
      body,
      async () => {
        const dir = join(await this.#modelDir(m), 'weights', name);
        const replaced = await dirBytes(dir);
        await m.backend.saveState(dir);
        await writeCheckpointMetadata(dir, body.user_metadata);
        booking.commit(await dirBytes(dir), replaced);
        m.checkpoints += 1;
        return { type: 'save_weights', path };
      },
      () => this.#reserveName(m.id, 'weights', name, body.overwrite ?? true, { type: 'save_weights', path }),
      booking,
    );
  }

  /** `load_weights` from a `tinker://…/weights/<name>` path of this server saved by the caller (optimizer state when `optimizer`). */
  loadWeights(body: z.infer<typeof w.loadWeightsSchema>, caller: ServeCaller): { request_id: string; model_id: string } {
    const m = this.#model(caller, body.model_id);
    w.parseTinkerPath(body.path, 'path');
    return this.#submit(caller, m, body.seq_id, 'load_weights', body, async () => {
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
    const m = this.#model(caller, body.model_id);
    const name = body.path ?? undefined;
    if (name !== undefined && !w.CHECKPOINT_NAME.test(name)) throw new ServeRequestError(400, `path: '${name}' is not a valid checkpoint name (${w.CHECKPOINT_NAME_RULE})`);
    const path = name === undefined ? undefined : `tinker://${m.id}/sampler_weights/${name}`;
    if (path !== undefined && !m.named.has(path) && m.named.size >= this.limits.maxNamedSamplersPerModel) {
      throw new ServeRequestError(400, `model ${m.id} already holds ${m.named.size} named sampler weights (maxNamedSamplersPerModel ${this.limits.maxNamedSamplersPerModel})`);
    }
    // Only named versions are written to the state folder; unnamed ones live in memory.
    const booking = path !== undefined ? this.#booking(m) : undefined;
    return this.#submit(
      caller,
      m,
      body.seq_id,
      'save_weights_for_sampler',
      body,
      async () => {
        const sampler = await m.backend.saveWeightsForSampler();
        if (!this.#models.has(m.id)) {
          sampler.release?.();
          throw new BackendInputError('model_id', `model '${m.id}' was unloaded`);
        }
        if (name !== undefined && path !== undefined) {
          // Named sampler weights are also written to disk, so they can be listed and downloaded.
          try {
            const dir = join(await this.#modelDir(m), 'sampler_weights', name);
            const replaced = await dirBytes(dir);
            await m.backend.saveState(dir);
            await writeCheckpointMetadata(dir, body.user_metadata);
            booking?.commit(await dirBytes(dir), replaced);
          } catch (e) {
            sampler.release?.();
            throw e;
          }
          this.#releaseNamed(path);
          this.#namedSamplers.set(path, { sampler, principal: m.principal, sessionId: undefined, modelId: m.id });
          m.named.add(path);
          return { type: 'save_weights_for_sampler', path };
        }
        const id = newId('sampler');
        this.#samplers.set(id, { sampler, principal: m.principal, sessionId: m.sessionId });
        m.ephemeral.push(id);
        while (m.ephemeral.length > this.limits.samplerVersionsPerModel) this.#releaseSampler(m.ephemeral.shift()!);
        return { type: 'save_weights_for_sampler', sampling_session_id: id };
      },
      name !== undefined && path !== undefined ? () => this.#reserveName(m.id, 'sampler_weights', name, body.overwrite ?? true, { type: 'save_weights_for_sampler', path }) : undefined,
      booking,
    );
  }

  /** `create_sampling_session` from a named sampler path of the caller, or the base model. */
  async createSamplingSession(body: z.infer<typeof w.createSamplingSessionSchema>, caller: ServeCaller): Promise<{ type: 'create_sampling_session'; sampling_session_id: string }> {
    const session = this.#session(caller, body.session_id);
    const ref = body.model_path ?? body.base_model ?? undefined;
    if (ref === undefined) throw new ServeRequestError(400, 'one of model_path or base_model is required');
    if (body.model_path == null && body.base_model !== this.modelName) {
      throw new ServeRequestError(400, `base_model '${body.base_model}' is not served here; available: ${this.modelName}`);
    }
    if (body.model_path != null) w.parseTinkerPath(body.model_path, 'model_path');
    const target = await this.#samplerEntry(ref, caller);
    const id = newId('sampler');
    this.#samplers.set(id, { sampler: target.sampler, principal: caller.principal, sessionId: body.session_id, aliasOf: ref, ...(body.model_path != null ? { modelPath: body.model_path } : {}) });
    session.samplingSessions.push(id);
    while (session.samplingSessions.length > this.limits.maxSamplingSessionsPerSession) this.#samplers.delete(session.samplingSessions.shift()!);
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
    const entry = await this.#samplerEntry(ref, caller);
    const L = this.limits;
    const n = body.num_samples ?? 1;
    if (n < 1 || n > L.maxNumSamples) throw new ServeRequestError(400, `num_samples: ${n} is outside [1, ${L.maxNumSamples}] (maxNumSamples)`);
    const maxTokens = body.sampling_params.max_tokens;
    if (maxTokens !== undefined && maxTokens !== null && (maxTokens < 0 || maxTokens > L.maxSampleTokens)) {
      throw new ServeRequestError(400, `sampling_params.max_tokens: ${maxTokens} is outside [0, ${L.maxSampleTokens}] (maxSampleTokens)`);
    }
    const prompt = w.modelInputTokens(body.prompt, 'prompt');
    if (prompt.length >= this.contextTokens) throw new ServeRequestError(400, `prompt: ${prompt.length} tokens leave no room in the context of ${this.contextTokens}`);
    const params = w.toSamplingParams(body.sampling_params, n, Math.min(this.contextTokens, L.maxSampleTokens));
    const done = this.#takeLoad(entry.sessionId ?? `principal:${caller.principal}`);
    // A sampler of a session stops (at the next token boundary) when the session expires or the server closes.
    const session = entry.sessionId === undefined ? undefined : this.#sessions.get(entry.sessionId);
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
    return [...this.#runs.values()].filter((r) => r.principal === caller.principal).reverse();
  }

  /** One run of `caller`. @throws ServeRequestError 404 when there is none by that id (or it is another principal's). */
  trainingRun(caller: ServeCaller, id: string): RunRecord {
    const r = this.#runs.get(id);
    if (!r || r.principal !== caller.principal) throw new ServeRequestError(404, `unknown training run '${id}'`);
    return r;
  }

  /**
   * Checkpoints of `caller`'s run `id` on disk, oldest first; only those inside the state folder (symbolic links
   * resolved), like {@link resolveCheckpoint}. @throws ServeRequestError 404 for an unknown run.
   */
  async checkpoints(caller: ServeCaller, id: string): Promise<StoredCheckpoint[]> {
    const run = this.trainingRun(caller, id);
    const root = await realpath(await this.stateDir());
    const out: StoredCheckpoint[] = [];
    for (const c of await listStoredCheckpoints(root, run.id)) {
      const real = await realpath(c.dir).catch(() => undefined);
      if (real !== undefined && real.startsWith(root + sep) && real === join(root, run.id, c.kind, c.name)) out.push(c);
    }
    return out;
  }

  /** One checkpoint of `caller` by run, kind and name. @throws ServeRequestError 404 when it does not exist. */
  async checkpoint(caller: ServeCaller, id: string, kind: CheckpointKind, name: string): Promise<StoredCheckpoint> {
    const c = (await this.checkpoints(caller, id)).find((x) => x.kind === kind && x.name === name);
    if (!c) throw new ServeRequestError(404, `no checkpoint tinker://${id}/${kind}/${name}`);
    return c;
  }

  /**
   * Deletes a checkpoint of `caller` (its name may be saved again); named sampler weights are released too.
   * @throws ServeRequestError 404 when it does not exist.
   */
  async deleteCheckpoint(caller: ServeCaller, id: string, kind: CheckpointKind, name: string): Promise<void> {
    const c = await this.checkpoint(caller, id, kind, name);
    const freed = await dirBytes(c.dir);
    await removeStoredCheckpoint(c);
    const sessionId = this.#runs.get(id)?.sessionId;
    if (sessionId !== undefined) this.#addStateBytes(sessionId, -freed);
    this.#savedNames.delete(`${id}/${kind}/${name}`);
    if (kind === 'sampler_weights') {
      const path = `tinker://${id}/${kind}/${name}`;
      this.#releaseNamed(path);
      this.#models.get(id)?.named.delete(path);
    }
  }

  /** Live sessions of `caller`, with their runs and live sampling session ids. */
  sessions(caller: ServeCaller): { id: string; trainingRunIds: string[]; samplerIds: string[] }[] {
    return this.sessionIds(caller).map((id) => ({
      id,
      trainingRunIds: [...this.#runs.values()].filter((r) => r.sessionId === id).map((r) => r.id),
      samplerIds: [...this.#samplers].filter(([, e]) => e.sessionId === id).map(([sid]) => sid),
    }));
  }

  /**
   * `GET /samplers/{id}`: the sampler's base model and, when it was made from saved weights, their path.
   * @throws ServeRequestError 404 when `caller` has no live sampling session by that id.
   */
  samplerInfo(caller: ServeCaller, id: string): { sampler_id: string; base_model: string; model_path?: string } {
    const e = this.#samplers.get(id);
    if (!e || e.principal !== caller.principal) throw new ServeRequestError(404, `unknown sampler '${id}'`);
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
    if (this.#o.stateDir !== undefined) {
      const dir = this.#o.stateDir;
      this.#stateDir ??= mkdir(dir, { recursive: true }).then(() => dir);
      return this.#stateDir;
    }
    this.#stateDir ??= mkdtemp(join(tmpdir(), 'agentrl-serve-')).then((d) => {
      this.#ownsStateDir = true;
      return d;
    });
    return this.#stateDir;
  }

  /** Closes every model and sampler, wakes pending polls and removes a temporary state directory. Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#sessionSweep);
    this.#futures.close();
    for (const [id, s] of [...this.#sessions]) await this.#endSession(id, s, 'the server is closing');
    for (const id of [...this.#models.keys()]) await this.#unload(id, 'the server is closing');
    await this.#baseBackend.close();
    for (const id of [...this.#samplers.keys()]) this.#releaseSampler(id);
    if (this.#baseSampler) (await this.#baseSampler).release?.();
    if (this.#ownsStateDir && this.#stateDir) await rm(await this.#stateDir, { recursive: true, force: true });
  }

  /** Refuses a `forward` / `forward_backward` input over the datum or token limits (before anything is converted). */
  #checkBatch(input: z.infer<typeof w.forwardInputSchema>, field: string): void {
    const L = this.limits;
    if (input.data.length > L.maxDatumsPerRequest) {
      throw new ServeRequestError(400, `${field}.data: ${input.data.length} datums exceed maxDatumsPerRequest ${L.maxDatumsPerRequest}; split the batch`);
    }
    let tokens = 0;
    input.data.forEach((d, i) => {
      let T = 0;
      for (const c of d.model_input.chunks) T += c.tokens?.length ?? 0;
      if (T > this.contextTokens) throw new ServeRequestError(400, `${field}.data[${i}].model_input: ${T} tokens exceed the context of ${this.contextTokens}`);
      tokens += T;
    });
    if (tokens > L.maxTokensPerRequest) throw new ServeRequestError(400, `${field}: ${tokens} tokens exceed maxTokensPerRequest ${L.maxTokensPerRequest}; split the batch`);
  }

  /**
   * Counts one unfinished future against `key` (a session) and the server; the returned function uncounts it.
   * @throws ServeRequestError 429 (with `Retry-After`) when the session or the server is at its queued limit.
   */
  #takeLoad(key: string): () => void {
    const L = this.limits;
    const mine = this.#queued.get(key) ?? 0;
    if (mine >= L.maxQueuedPerSession) {
      throw new ServeRequestError(429, `${mine} requests of this session are unfinished (maxQueuedPerSession ${L.maxQueuedPerSession}); wait for them to finish`, { category: 'user', retryAfterS: 1 });
    }
    if (this.#queuedTotal >= L.maxQueued) throw new ServeRequestError(429, `server busy: ${this.#queuedTotal} requests unfinished (maxQueued ${L.maxQueued}); retry later`, { category: 'server', retryAfterS: 1 });
    return this.#countLoad(key);
  }

  /** Counts one unfinished future against `key` without a check; the returned function uncounts it (once). */
  #countLoad(key: string): () => void {
    this.#queued.set(key, (this.#queued.get(key) ?? 0) + 1);
    this.#queuedTotal += 1;
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.#queuedTotal -= 1;
      const left = (this.#queued.get(key) ?? 1) - 1;
      if (left === 0) this.#queued.delete(key);
      else this.#queued.set(key, left);
    };
  }

  /**
   * Queues `run` in `seq_id` order, counted against the session's and the server's load limits. `body` identifies the
   * request for duplicates (a protobuf body by its bytes). `reserve` runs after the duplicate and load checks (an
   * identical resubmission still gets its original request id); when it refuses (a name conflict), the `seq_id` is
   * consumed by a no-op whose result is `refusal.result`, so later requests of the model do not wait for it, and the
   * refusal is thrown (HTTP 409).
   */
  #submit(
    caller: ServeCaller,
    m: ModelState,
    seqId: number | null | undefined,
    op: string,
    body: unknown,
    run: () => Promise<FutureBody>,
    reserve?: () => SubmitRefusal | undefined,
    booking?: StateBooking,
  ): { request_id: string; model_id: string } {
    this.#touch(m);
    const text = body instanceof Uint8Array ? body : JSON.stringify(body);
    const hash = digest(op, text);
    const adm = m.queue.admit(seqId, hash, text.length);
    if (adm.kind === 'duplicate') return { request_id: adm.requestId, model_id: m.id };
    if (adm.kind === 'conflict') throw new ServeRequestError(409, adm.message);
    if (adm.kind === 'full') throw new ServeRequestError(429, adm.message, { category: 'user', retryAfterS: 1 });
    // A request held for a missing lower seq_id is bounded by the out-of-order limits and counts as queued work only
    // once released, so that the client can always send the missing one. The others are counted (and refused) now.
    let done: (() => void) | undefined;
    if (!adm.held) {
      try {
        // An unload always goes through: it is how a client at its limit frees what it holds.
        done = op === 'unload_model' ? this.#countLoad(m.sessionId) : this.#takeLoad(m.sessionId);
      } catch (e) {
        adm.cancel(); // its seq_id stays unused: the retry is new, not a duplicate of nothing
        throw e;
      }
    }
    try {
      booking?.take(); // over a state-folder byte limit: refused before anything is queued or written
    } catch (e) {
      done?.();
      adm.cancel();
      throw e;
    }
    const refusal = reserve?.();
    if (refusal) {
      booking?.settle();
      done?.();
      adm.record(this.#futures.create(caller.principal, Promise.resolve(refusal.result), errorBody));
      adm.start(async () => {});
      throw refusal.error;
    }
    let release!: (v: FutureBody | PromiseLike<FutureBody>) => void;
    let fail!: (e: unknown) => void;
    const result = new Promise<FutureBody>((res, rej) => {
      release = res;
      fail = rej;
    });
    const requestId = this.#futures.create(caller.principal, result, errorBody, () => {
      done?.();
      booking?.settle();
    });
    adm.record(requestId);
    // Until it has run, the request can be dropped (its session or model goes): the future fails at once and the
    // closure holding its body is let go, though its place in the model's queue stays until it is reached.
    let work: (() => Promise<FutureBody>) | undefined = run;
    const drop = (message: string) => {
      work = undefined;
      m.unfinished.delete(drop);
      fail(new BackendInputError('model_id', message));
    };
    m.unfinished.add(drop);
    adm.start(
      async () => {
        const job = work;
        if (job === undefined) return;
        work = undefined;
        m.unfinished.delete(drop); // running now: it ends by itself
        done ??= this.#countLoad(m.sessionId);
        try {
          if (!this.#models.has(m.id)) throw new BackendInputError('model_id', `model '${m.id}' was unloaded`);
          release(await job());
          this.#touch(m);
        } catch (e) {
          fail(e);
        }
      },
      (message) => {
        work = undefined;
        m.unfinished.delete(drop);
        fail(new BackendInputError('seq_id', message));
      },
    );
    return { request_id: requestId, model_id: m.id };
  }

  /** A model's requests (and their completion, after a long engine call) count as signs of life of its session. */
  #touch(m: ModelState): void {
    const s = this.#sessions.get(m.sessionId);
    if (s) s.lastSeen = Math.max(s.lastSeen, Date.now());
    const r = this.#runs.get(m.id);
    if (r) r.lastRequestTime = Date.now();
  }

  /** Reserves a checkpoint name; with `overwrite: false` an existing one is a 409 (whose no-op result is `existing`). */
  #reserveName(modelId: string, kind: CheckpointKind, name: string, overwrite: boolean, existing: FutureBody): SubmitRefusal | undefined {
    const key = `${modelId}/${kind}/${name}`;
    if (!overwrite && this.#savedNames.has(key)) {
      return { error: new ServeRequestError(409, `checkpoint tinker://${key} already exists (overwrite: false)`), result: existing };
    }
    this.#savedNames.add(key);
    return undefined;
  }

  /** `<stateDir>/<model id>`, created with its owner record (the principal that may load or list what is saved there). */
  async #modelDir(m: ModelState): Promise<string> {
    const modelDir = join(await this.stateDir(), m.id);
    await mkdir(modelDir, { recursive: true });
    await writeFile(join(modelDir, 'owner'), principalTag(m.principal));
    return modelDir;
  }

  async #samplerEntry(ref: string, caller: ServeCaller): Promise<SamplerEntry> {
    const byId = this.#samplers.get(ref);
    if (byId) {
      if (byId.principal !== caller.principal) throw unknownSampler(ref, this.modelName);
      return byId;
    }
    if (ref.startsWith('tinker://')) {
      const p = w.parseTinkerPath(ref, 'model_path');
      const named = p.kind === 'sampler_weights' ? this.#namedSamplers.get(`tinker://${p.modelId}/${p.kind}/${p.name}`) : undefined;
      if (!named || named.principal !== caller.principal) throw new ServeRequestError(404, `model_path: no sampler weights saved at ${ref}`);
      return named;
    }
    if (ref === this.modelName) {
      this.#baseSampler ??= this.#baseBackend.saveWeightsForSampler();
      return { sampler: await this.#baseSampler, principal: caller.principal, sessionId: undefined };
    }
    throw unknownSampler(ref, this.modelName);
  }

  /** Forgets sampling session `id`; frees its weights version unless it is an alias of a named or base sampler. */
  #releaseSampler(id: string): void {
    const e = this.#samplers.get(id);
    if (!e) return;
    this.#samplers.delete(id);
    if (e.aliasOf === undefined) e.sampler.release?.();
  }

  /** Forgets a named sampler path, its aliases, and frees its weights version. */
  #releaseNamed(path: string): void {
    const e = this.#namedSamplers.get(path);
    if (!e) return;
    this.#namedSamplers.delete(path);
    for (const [id, a] of this.#samplers) if (a.aliasOf === path) this.#samplers.delete(id);
    e.sampler.release?.();
  }

  /** Estimated bytes of one checkpoint (weights + Adam moments as float32, headers and config): booked before a save. */
  #checkpointEstimate(): number {
    const cfg = (this.#baseBackend as { readonly config?: ModelConfig }).config;
    const estimate = cfg === undefined ? 0 : 12 * parameterCount(cfg) + 64 * 1024;
    return Math.max(estimate, this.#lastCheckpointBytes);
  }

  #addStateBytes(sessionId: string, delta: number): void {
    const left = Math.max(0, (this.#stateBytes.get(sessionId) ?? 0) + delta);
    if (left === 0) this.#stateBytes.delete(sessionId);
    else this.#stateBytes.set(sessionId, left);
    this.#stateTotal = Math.max(0, this.#stateTotal + delta);
  }

  /** A {@link StateBooking} of one save of model `m`, counted against its session's and the server's byte limits. */
  #booking(m: ModelState): StateBooking {
    let reserved = 0;
    let open = true;
    return {
      take: () => {
        const L = this.limits;
        const need = this.#checkpointEstimate();
        const mine = this.#stateBytes.get(m.sessionId) ?? 0;
        if (mine + need > L.maxStateBytesPerSession) {
          throw new ServeRequestError(400, `state folder: this session's checkpoints hold ${mine} bytes and one more needs about ${need} (maxStateBytesPerSession ${L.maxStateBytesPerSession}); delete a checkpoint first`);
        }
        if (this.#stateTotal + need > L.maxStateBytes) {
          throw new ServeRequestError(400, `state folder: checkpoints hold ${this.#stateTotal} bytes and one more needs about ${need} (maxStateBytes ${L.maxStateBytes}); delete a checkpoint first`);
        }
        reserved = need;
        this.#addStateBytes(m.sessionId, need);
      },
      commit: (written, replaced) => {
        if (!open) return;
        open = false;
        this.#lastCheckpointBytes = Math.max(this.#lastCheckpointBytes, written);
        this.#addStateBytes(m.sessionId, written - replaced - reserved);
        reserved = 0;
      },
      settle: () => {
        if (!open) return;
        open = false;
        this.#addStateBytes(m.sessionId, -reserved);
        reserved = 0;
      },
    };
  }

  #newBackend(): TrainingBackend {
    const make = this.#o.engineThread === 'main' ? localBackend : workerLocalBackend;
    return make({ ...this.#o.engine, ...(this.#o.checkpoint !== undefined ? { checkpoint: this.#o.checkpoint } : {}) });
  }

  /** Closes model `id`: its requests not yet run fail with `reason` at once, then its samplers and engine are freed. */
  async #unload(id: string, reason = `model '${id}' was unloaded`): Promise<void> {
    const m = this.#models.get(id);
    if (!m) return;
    this.#models.delete(id);
    this.#sessions.get(m.sessionId)?.models.delete(id);
    m.queue.clear(reason);
    for (const drop of [...m.unfinished]) drop(reason);
    for (const sid of m.ephemeral.splice(0)) this.#releaseSampler(sid);
    for (const path of m.named) this.#releaseNamed(path);
    m.named.clear();
    await m.backend.close();
  }
}

function unknownSampler(ref: string, modelName: string): ServeRequestError {
  return new ServeRequestError(404, `no sampler '${ref}': expected a live sampling_session_id (older unnamed sampler versions are released), a tinker://…/sampler_weights/… path or '${modelName}'`);
}

async function readOwner(modelDir: string): Promise<string | undefined> {
  try {
    return (await readFile(join(modelDir, 'owner'), 'utf8')).trim();
  } catch {
    return undefined;
  }
}

function convert(input: z.infer<typeof w.forwardInputSchema>): { datums: Datum[]; loss: LossConfig } {
  const loss = lossConfigFromWire(input.loss_fn, input.loss_fn_config);
  return { datums: input.data.map((d, i) => w.toDatum(d, i, input.loss_fn)), loss };
}

function fbOutput(datums: readonly Datum[], loss: LossConfig, logprobs: readonly (readonly number[])[], metrics: Record<string, number>): FutureBody {
  let total = 0;
  const outputs = datums.map((d, i) => {
    const lp = logprobs[i]!;
    const el = perTokenLoss(loss, { targetLogprobs: lp, samplingLogprobs: d.logprobs, advantages: d.advantages, weights: d.weights ?? d.mask });
    total += el.reduce((a, b) => a + b, 0);
    return { logprobs: w.floatTensor(lp), elementwise_loss: w.floatTensor(el) };
  });
  return { type: 'forward_backward', loss_fn_output_type: 'ArrayRecord', loss_fn_outputs: outputs, metrics: { 'loss:sum': total, ...metrics } };
}

/** Bytes of the files directly in `dir` (a checkpoint directory is flat); 0 when it does not exist. */
async function dirBytes(dir: string): Promise<number> {
  let total = 0;
  for (const f of await readdir(dir).catch(() => [] as string[])) {
    const st = await stat(join(dir, f)).catch(() => undefined);
    if (st?.isFile()) total += st.size;
  }
  return total;
}
