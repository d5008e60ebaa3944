import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { z } from 'zod';
import type { SamplingClient, TrainingBackend } from '../../backend/types.js';
import { localBackend, type LocalBackendOptions } from '../../backend/local/index.js';
import { BackendInputError } from '../../errors/index.js';
import { perTokenLoss } from '../../loss/index.js';
import type { Datum } from '../../types/datum.js';
import type { Renderer } from '../../chat/types.js';
import type { LossConfig } from '../../types/loss-config.js';
import { errorBody, ServeRequestError } from './errors.js';
import { FutureStore, type FutureBody, type FutureWait } from './futures.js';
import { SeqQueue } from './seq-queue.js';
import { listStoredCheckpoints, removeStoredCheckpoint, type CheckpointKind, type StoredCheckpoint } from './checkpoint-store.js';
import * as w from './wire.js';

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
}

interface ModelState {
  readonly id: string;
  readonly sessionId: string;
  readonly backend: TrainingBackend;
  readonly queue: SeqQueue;
  readonly lora: z.infer<typeof w.loraConfigSchema> | undefined;
  readonly userMetadata: Readonly<Record<string, unknown>> | undefined;
}

interface SessionState {
  readonly principal: string;
  lastSeen: number;
  readonly models: Set<string>;
  readonly samplers: Set<string>;
}

/** A training run as the REST surface reports it; kept after its model is unloaded (its checkpoints stay). */
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

/** A sampler's origin, for `GET /samplers/{id}`. */
interface SamplerInfo {
  readonly modelPath: string | undefined;
}

/**
 * Who is asking: the principal of the API key a request presents (`'anonymous'` on a server with one key or none).
 * Named as in the ownership work of issue 25 (`ServeCaller`), so the two merge onto one seam.
 */
export interface Caller {
  readonly principal: string;
}

const digest = (op: string, body: unknown): string => createHash('sha256').update(op).update(JSON.stringify(body)).digest('hex');

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
  readonly #o: TinkerServiceOptions;
  readonly #futures: FutureStore;
  readonly #sessions = new Map<string, SessionState>();
  readonly #models = new Map<string, ModelState>();
  readonly #samplers = new Map<string, SamplingClient>();
  readonly #samplerInfo = new Map<string, SamplerInfo>();
  readonly #runs = new Map<string, RunRecord>();
  /** `<model>/<kind>/<name>` of every save submitted (reserved before it runs, so a second one conflicts at once). */
  readonly #savedNames = new Set<string>();
  readonly #namedSamplers = new Map<string, SamplingClient>();
  readonly #sessionSweep: NodeJS.Timeout;
  readonly #baseBackend: TrainingBackend;
  #baseSampler: Promise<SamplingClient> | undefined;
  #stateDir: Promise<string> | undefined;
  #ownsStateDir = false;
  #closed = false;

  constructor(options: TinkerServiceOptions = {}) {
    this.#o = options;
    this.modelName = options.modelName ?? 'agentrl/local';
    // Built now (the engine itself starts lazily) so bad options or an unreadable checkpoint fail at startup.
    this.#baseBackend = this.#newBackend();
    this.contextTokens = this.#baseBackend.maxContextTokens;
    this.pollTimeoutMs = options.pollTimeoutMs ?? 30_000;
    this.#futures = new FutureStore({ ttlMs: options.futureTtlMs ?? 600_000 });
    const timeout = options.sessionTimeoutMs ?? 300_000;
    const every = Math.max(1000, Math.min(30_000, timeout / 4));
    let prev = Date.now();
    this.#sessionSweep = setInterval(() => {
      // The engine runs on this thread: while a long forward_backward blocks it, heartbeats wait unread in the
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

  /** `tinker://…/sampler_weights/<name>` paths saved so far (each a model id of the OpenAI-compatible `/v1`). */
  samplerPaths(): string[] {
    return [...this.#namedSamplers.keys()];
  }

  /** `get_server_capabilities`: the one base model, with its context length. */
  capabilities(): { supported_models: { model_name: string; max_context_length: number }[] } {
    return { supported_models: [{ model_name: this.modelName, max_context_length: this.contextTokens }] };
  }

  /** `create_session`: a new session id. */
  createSession(_body: z.infer<typeof w.createSessionSchema>, caller: Caller = { principal: 'anonymous' }): { type: 'create_session'; session_id: string } {
    const id = `session_${randomBytes(8).toString('hex')}`;
    this.#sessions.set(id, { principal: caller.principal, lastSeen: Date.now(), models: new Set(), samplers: new Set() });
    return { type: 'create_session', session_id: id };
  }

  /** `session_heartbeat`. @throws ServeRequestError 404 for an unknown session. */
  heartbeat(body: z.infer<typeof w.heartbeatSchema>): { type: 'session_heartbeat' } {
    this.#session(body.session_id).lastSeen = Date.now();
    return { type: 'session_heartbeat' };
  }

  /** Drops sessions last seen before `cutoff` (ms since epoch) and closes their models. */
  async expireSessions(cutoff: number): Promise<void> {
    for (const [id, s] of this.#sessions) {
      if (s.lastSeen >= cutoff) continue;
      this.#sessions.delete(id);
      for (const m of s.models) await this.#unload(m);
    }
  }

  /** `create_model`: a future of `{model_id}`; the model is a fresh copy of the checkpoint. @throws ServeRequestError 404/400 */
  createModel(body: z.infer<typeof w.createModelSchema>, caller: Caller = { principal: 'anonymous' }): { request_id: string; model_id: string } {
    const session = this.#session(body.session_id);
    if (body.base_model && body.base_model !== this.modelName) {
      throw new ServeRequestError(400, `base_model '${body.base_model}' is not served here; available: ${this.modelName}`);
    }
    const id = `model_${randomBytes(4).toString('hex')}`;
    const work = (async () => {
      // lora_config.seed is not applied: every model starts from the same weights (the checkpoint, or the seeded init).
      const backend = this.#newBackend();
      this.#models.set(id, { id, sessionId: body.session_id, backend, queue: new SeqQueue(), lora: body.lora_config ?? undefined, userMetadata: body.user_metadata ?? undefined });
      this.#runs.set(id, { id, sessionId: body.session_id, principal: caller.principal, baseModel: this.modelName, lora: body.lora_config ?? undefined, userMetadata: body.user_metadata ?? undefined, lastRequestTime: Date.now() });
      session.models.add(id);
      return { type: 'create_model', model_id: id };
    })();
    return { request_id: this.#futures.create(work, errorBody), model_id: id };
  }

  /** `get_info` (synchronous). @throws ServeRequestError 404 for an unknown model. */
  getInfo(body: z.infer<typeof w.modelIdSchema>): Record<string, unknown> {
    const m = this.#model(body.model_id);
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

  /** `unload_model`: closes the model after its queued requests. */
  unloadModel(body: z.infer<typeof w.modelIdSchema>): { request_id: string; model_id: string } {
    const m = this.#model(body.model_id);
    return this.#submit(m, undefined, 'unload_model', body, async () => {
      await this.#unload(m.id);
      return { type: 'unload_model', model_id: m.id };
    });
  }

  /** `forward_backward`: Tinker's token-sum loss; gradients accumulate until `optim_step`. */
  forwardBackward(body: z.infer<typeof w.forwardBackwardSchema>, raw?: Uint8Array): { request_id: string; model_id: string } {
    const m = this.#model(body.model_id);
    return this.#submit(m, body.seq_id, 'forward_backward', raw ?? body, async () => {
      const { datums, loss } = convert(body.forward_backward_input);
      const r = await m.backend.forwardBackward(datums, loss);
      return fbOutput(datums, loss, r.logprobs, { 'loss:sum': r.metrics['loss'] ?? 0, 'tokens:sum': r.metrics['tokens'] ?? 0, 'clip_frac:mean': r.metrics['clip_frac'] ?? 0, 'kl_sample_train:mean': r.metrics['kl_sample_train'] ?? 0 });
    });
  }

  /** `forward`: learner logprobs and the loss without touching gradients (one context-length pass per datum). */
  forward(body: z.infer<typeof w.forwardSchema>, raw?: Uint8Array): { request_id: string; model_id: string } {
    const m = this.#model(body.model_id);
    return this.#submit(m, body.seq_id, 'forward', raw ?? body, async () => {
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
        const lp = await m.backend.computeLogprobs([...d.modelInput, d.targetTokens[T - 1]!]);
        logprobs.push(lp.slice(1) as number[]);
      }
      return fbOutput(datums, loss, logprobs, {});
    });
  }

  /** `optim_step`: Adam on the accumulated gradients. */
  optimStep(body: z.infer<typeof w.optimStepSchema>): { request_id: string; model_id: string } {
    const m = this.#model(body.model_id);
    return this.#submit(m, body.seq_id, 'optim_step', body, async () => {
      const r = await m.backend.optimStep(w.toAdamParams(body.adam_params));
      return { type: 'optim_step', metrics: r.metrics };
    });
  }

  /** `save_weights`: weights + optimizer state under the state directory; answers the `tinker://` path. */
  saveWeights(body: z.infer<typeof w.saveWeightsSchema>): { request_id: string; model_id: string } {
    const m = this.#model(body.model_id);
    const name = body.path ?? `state-${randomBytes(4).toString('hex')}`;
    checkName(name);
    const path = `tinker://${m.id}/weights/${name}`;
    return this.#submit(
      m,
      body.seq_id,
      'save_weights',
      body,
      async () => {
        await m.backend.saveState(join(await this.stateDir(), m.id, 'weights', name));
        return { type: 'save_weights', path };
      },
      () => this.#reserveName(m.id, 'weights', name, body.overwrite ?? true, { type: 'save_weights', path }),
    );
  }

  /** `load_weights` from a `tinker://…/weights/<name>` path of this server (optimizer state when `optimizer`). */
  loadWeights(body: z.infer<typeof w.loadWeightsSchema>): { request_id: string; model_id: string } {
    const m = this.#model(body.model_id);
    return this.#submit(m, body.seq_id, 'load_weights', body, async () => {
      const p = w.parseTinkerPath(body.path, 'path');
      if (p.kind !== 'weights') throw new BackendInputError('path', 'load_weights needs a …/weights/<name> path (training state), not sampler weights');
      const dir = join(await this.stateDir(), p.modelId, 'weights', p.name);
      if (!existsSync(join(dir, 'config.json'))) throw new BackendInputError('path', `no saved state at ${body.path}`);
      await m.backend.loadState(dir, { optimizer: body.optimizer ?? false });
      return { type: 'load_weights', path: body.path, model_id: m.id };
    });
  }

  /** `save_weights_for_sampler`: a frozen copy of the weights, named (`path`) or ephemeral (a sampling session id). */
  saveWeightsForSampler(body: z.infer<typeof w.saveForSamplerSchema>): { request_id: string; model_id: string } {
    const m = this.#model(body.model_id);
    const name = body.path ?? undefined;
    if (name !== undefined) checkName(name);
    const path = name !== undefined ? `tinker://${m.id}/sampler_weights/${name}` : undefined;
    return this.#submit(
      m,
      body.seq_id,
      'save_weights_for_sampler',
      body,
      async () => {
        const sampler = await m.backend.saveWeightsForSampler();
        if (name !== undefined && path !== undefined) {
          // Named sampler weights are also written to disk, so they can be listed and downloaded.
          await m.backend.saveState(join(await this.stateDir(), m.id, 'sampler_weights', name));
          this.#namedSamplers.set(path, sampler);
          return { type: 'save_weights_for_sampler', path };
        }
        const id = `sampler_${randomBytes(8).toString('hex')}`;
        this.#samplers.set(id, sampler);
        this.#samplerInfo.set(id, { modelPath: undefined });
        this.#sessions.get(m.sessionId)?.samplers.add(id);
        return { type: 'save_weights_for_sampler', sampling_session_id: id };
      },
      name !== undefined && path !== undefined ? () => this.#reserveName(m.id, 'sampler_weights', name, body.overwrite ?? true, { type: 'save_weights_for_sampler', path }) : undefined,
    );
  }

  /** `create_sampling_session` from a named sampler path or the base model. */
  async createSamplingSession(body: z.infer<typeof w.createSamplingSessionSchema>): Promise<{ type: 'create_sampling_session'; sampling_session_id: string }> {
    const session = this.#session(body.session_id);
    const sampler = await this.#resolveSampler(body.model_path ?? undefined, body.base_model ?? undefined);
    const id = `sampler_${randomBytes(8).toString('hex')}`;
    this.#samplers.set(id, sampler);
    this.#samplerInfo.set(id, { modelPath: body.model_path ?? undefined });
    session.samplers.add(id);
    return { type: 'create_sampling_session', sampling_session_id: id };
  }

  /** `asample`: runs beside (not behind) training; returns a future. */
  async sample(body: z.infer<typeof w.sampleSchema>): Promise<{ request_id: string }> {
    const sampler = body.sampling_session_id
      ? this.#samplers.get(body.sampling_session_id)
      : await this.#resolveSampler(body.model_path ?? undefined, body.base_model ?? undefined);
    if (!sampler) throw new ServeRequestError(404, `unknown sampling_session_id '${body.sampling_session_id}'`);
    const work = (async () => {
      const prompt = w.modelInputTokens(body.prompt, 'prompt');
      const n = body.num_samples ?? 1;
      const params = w.toSamplingParams(body.sampling_params, n, this.contextTokens);
      const seqs = await sampler.sample(prompt, params);
      const promptLogprobs = body.prompt_logprobs ? await sampler.computeLogprobs(prompt) : undefined;
      return {
        type: 'sample',
        sequences: seqs.map((s) => ({ tokens: [...s.tokens], logprobs: [...s.logprobs], stop_reason: s.stopReason })),
        ...(promptLogprobs ? { prompt_logprobs: promptLogprobs } : {}),
      };
    })();
    return { request_id: this.#futures.create(work, errorBody) };
  }

  /**
   * A sampler by reference, for other surfaces mounted on the same server (e.g. an OpenAI-compatible `/v1`): a
   * `sampling_session_id`, a `tinker://<model>/sampler_weights/<name>` path, or the base model name (the checkpoint's
   * weights).
   * @throws ServeRequestError 404 when nothing by that reference exists.
   */
  async resolveSampler(ref: string): Promise<SamplingClient> {
    const byId = this.#samplers.get(ref);
    if (byId) return byId;
    if (ref.startsWith('tinker://')) return this.#resolveSampler(ref, undefined);
    if (ref === this.modelName) return this.#resolveSampler(undefined, ref);
    throw new ServeRequestError(404, `no sampler '${ref}': expected a sampling_session_id, a tinker://…/sampler_weights/… path or '${this.modelName}'`);
  }

  /**
   * The training runs `caller` may see — the one seam every REST listing and lookup goes through, so ownership rules
   * apply in one place. Newest first.
   */
  trainingRuns(caller: Caller): RunRecord[] {
    return [...this.#runs.values()].filter((r) => r.principal === caller.principal).reverse();
  }

  /** One run of `caller`. @throws ServeRequestError 404 when there is none by that id (or it is someone else's). */
  trainingRun(caller: Caller, id: string): RunRecord {
    const r = this.trainingRuns(caller).find((x) => x.id === id);
    if (!r) throw new ServeRequestError(404, `unknown training run '${id}'`);
    return r;
  }

  /** Checkpoints of `caller`'s run `id` on disk, oldest first. @throws ServeRequestError 404 for an unknown run. */
  async checkpoints(caller: Caller, id: string): Promise<StoredCheckpoint[]> {
    const run = this.trainingRun(caller, id);
    return listStoredCheckpoints(await this.stateDir(), run.id);
  }

  /** One checkpoint by run, kind and name. @throws ServeRequestError 404 when it does not exist. */
  async checkpoint(caller: Caller, id: string, kind: CheckpointKind, name: string): Promise<StoredCheckpoint> {
    const c = (await this.checkpoints(caller, id)).find((x) => x.kind === kind && x.name === name);
    if (!c) throw new ServeRequestError(404, `no checkpoint tinker://${id}/${kind}/${name}`);
    return c;
  }

  /** Deletes a checkpoint (its name may be saved again). @throws ServeRequestError 404 when it does not exist. */
  async deleteCheckpoint(caller: Caller, id: string, kind: CheckpointKind, name: string): Promise<void> {
    const c = await this.checkpoint(caller, id, kind, name);
    await removeStoredCheckpoint(c);
    this.#savedNames.delete(`${id}/${kind}/${name}`);
    this.#namedSamplers.delete(`tinker://${id}/${kind}/${name}`);
  }

  /** Sessions of `caller` (live ones), with their runs and samplers. */
  sessions(caller: Caller): { id: string; trainingRunIds: string[]; samplerIds: string[] }[] {
    return [...this.#sessions.entries()]
      .filter(([, s]) => s.principal === caller.principal)
      .map(([id, s]) => ({ id, trainingRunIds: [...this.#runs.values()].filter((r) => r.sessionId === id).map((r) => r.id), samplerIds: [...s.samplers] }));
  }

  /** `GET /samplers/{id}`: the sampler's base model and, when it was made from saved weights, their path. @throws ServeRequestError 404 */
  samplerInfo(id: string): { sampler_id: string; base_model: string; model_path?: string } {
    const info = this.#samplerInfo.get(id);
    if (!info || !this.#samplers.has(id)) throw new ServeRequestError(404, `unknown sampler '${id}'`);
    return { sampler_id: id, base_model: this.modelName, ...(info.modelPath !== undefined ? { model_path: info.modelPath } : {}) };
  }

  /** The served model's renderer (tokenizer + chat template of the embedded model). */
  renderer(): Promise<Renderer> {
    return this.#baseBackend.renderer();
  }

  /** `retrieve_future`: waits up to the poll timeout. */
  retrieve(body: z.infer<typeof w.retrieveFutureSchema>, signal?: AbortSignal): Promise<FutureWait> {
    return this.#futures.wait(body.request_id, this.pollTimeoutMs, signal);
  }

  /** The directory `save_weights` writes under (created on first use). */
  stateDir(): Promise<string> {
    if (this.#o.stateDir !== undefined) return Promise.resolve(this.#o.stateDir);
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
    for (const id of [...this.#models.keys()]) await this.#unload(id);
    await this.#baseBackend.close();
    this.#samplers.clear();
    this.#namedSamplers.clear();
    if (this.#ownsStateDir && this.#stateDir) await rm(await this.#stateDir, { recursive: true, force: true });
  }

  /**
   * Queues `run` in `seq_id` order. `precheck` runs after the duplicate check (an identical resubmission still gets
   * its original request id); when it refuses (a name conflict), the `seq_id` is consumed by a no-op whose result is
   * `refusal.result`, so later requests of the model do not wait for it, and the refusal is thrown (HTTP 409).
   */
  #submit(
    m: ModelState,
    seqId: number | null | undefined,
    op: string,
    body: unknown,
    run: () => Promise<FutureBody>,
    precheck?: () => { readonly error: ServeRequestError; readonly result: FutureBody } | undefined,
  ): { request_id: string; model_id: string } {
    this.#touch(m);
    const adm = m.queue.admit(seqId, digest(op, body));
    if (adm.kind === 'duplicate') return { request_id: adm.requestId, model_id: m.id };
    if (adm.kind === 'conflict') throw new ServeRequestError(409, adm.message);
    const refusal = precheck?.();
    if (refusal) {
      adm.record(this.#futures.create(Promise.resolve(refusal.result), errorBody));
      adm.start(async () => {});
      throw refusal.error;
    }
    let release!: (v: FutureBody | PromiseLike<FutureBody>) => void;
    let fail!: (e: unknown) => void;
    const result = new Promise<FutureBody>((res, rej) => {
      release = res;
      fail = rej;
    });
    const requestId = this.#futures.create(result, errorBody);
    adm.record(requestId);
    adm.start(async () => {
      try {
        if (!this.#models.has(m.id)) throw new BackendInputError('model_id', `model '${m.id}' was unloaded`);
        release(await run());
        this.#touch(m);
      } catch (e) {
        fail(e);
      }
    });
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
  #reserveName(modelId: string, kind: 'weights' | 'sampler_weights', name: string, overwrite: boolean, existing: FutureBody): { error: ServeRequestError; result: FutureBody } | undefined {
    const key = `${modelId}/${kind}/${name}`;
    if (!overwrite && this.#savedNames.has(key)) {
      return { error: new ServeRequestError(409, `checkpoint tinker://${key} already exists (overwrite: false)`), result: existing };
    }
    this.#savedNames.add(key);
    return undefined;
  }

  async #resolveSampler(modelPath: string | undefined, baseModel: string | undefined): Promise<SamplingClient> {
    if (modelPath) {
      const p = w.parseTinkerPath(modelPath, 'model_path');
      const s = this.#namedSamplers.get(`tinker://${p.modelId}/${p.kind}/${p.name}`);
      if (!s) throw new ServeRequestError(404, `model_path: no sampler weights saved at ${modelPath}`);
      return s;
    }
    if (baseModel !== undefined && baseModel !== this.modelName) {
      throw new ServeRequestError(400, `base_model '${baseModel}' is not served here; available: ${this.modelName}`);
    }
    if (baseModel === undefined) throw new ServeRequestError(400, 'one of sampling_session_id, model_path or base_model is required');
    this.#baseSampler ??= this.#baseBackend.saveWeightsForSampler();
    return this.#baseSampler;
  }

  #newBackend(): TrainingBackend {
    return localBackend({ ...this.#o.engine, ...(this.#o.checkpoint !== undefined ? { checkpoint: this.#o.checkpoint } : {}) });
  }

  #session(id: string): SessionState {
    const s = this.#sessions.get(id);
    if (!s) throw new ServeRequestError(404, `unknown session_id '${id}' (create_session first; sessions expire without heartbeats)`);
    return s;
  }

  #model(id: string): ModelState {
    const m = this.#models.get(id);
    if (!m) throw new ServeRequestError(404, `unknown model_id '${id}'`);
    return m;
  }

  async #unload(id: string): Promise<void> {
    const m = this.#models.get(id);
    if (!m) return;
    this.#models.delete(id);
    this.#sessions.get(m.sessionId)?.models.delete(id);
    await m.backend.close();
  }
}

/**
 * Checkpoint names: `^[A-Za-z0-9_-]{1,128}$` — SkyRL's rule (the strictest server users meet; no `.`), with a length
 * cap because names become directory names here.
 * @throws ServeRequestError 400 for any other name.
 */
function checkName(name: string): void {
  if (!w.CHECKPOINT_NAME.test(name)) throw new ServeRequestError(400, `path: '${name}' is not a valid checkpoint name (1–128 of letters, digits, _ and -)`);
}

function convert(input: z.infer<typeof w.forwardInputSchema>): { datums: Datum[]; loss: LossConfig } {
  const loss = w.toLossConfig(input.loss_fn, input.loss_fn_config);
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
