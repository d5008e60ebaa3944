import { createHash } from 'node:crypto';
import type { z } from 'zod';
import type { TrainingBackend } from 'agentrl/internal';
import { BackendInputError } from 'agentrl/internal';
import type { ServeCaller } from './caller.js';
import { errorBody, ServeRequestError } from './errors.js';
import type { FutureBody, FutureStore } from './future-store.js';
import type { LoadAccounting } from './load-accounting.js';
import type { RunCatalog, SubmitRefusal } from './run-catalog.js';
import type { SamplerRegistry } from './sampler-registry.js';
import type { SeqQueue } from './seq-queue.js';
import type { SessionRegistry } from './session-registry.js';
import type { StateBooking } from './state-folder-bytes.js';
import type * as w from './request-schemas.js';

/** One model: its engine, its `seq_id` queue and what it holds. */
export interface ModelState {
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

const digest = (op: string, body: string | Uint8Array): string => createHash('sha256').update(op).update(body).digest('hex');

/** What a {@link ModelRegistry} books its work against. */
export interface ModelRegistryParts {
  readonly futures: FutureStore;
  readonly load: LoadAccounting;
  readonly sessions: SessionRegistry;
  readonly runs: RunCatalog;
  readonly samplers: SamplerRegistry;
}

/**
 * The live models, each owned by the principal that created it, and the one way work reaches them: {@link submit}
 * queues a request in its model's `seq_id` order against the load limits, and {@link unload} fails what has not run.
 */
export class ModelRegistry {
  readonly #models = new Map<string, ModelState>();
  readonly #p: ModelRegistryParts;

  constructor(parts: ModelRegistryParts) {
    this.#p = parts;
  }

  get size(): number {
    return this.#models.size;
  }

  add(m: ModelState): void {
    this.#models.set(m.id, m);
  }

  /** `caller`'s model `id`. @throws ServeRequestError 404 when unknown or another principal's. */
  of(caller: ServeCaller, id: string): ModelState {
    const m = this.#models.get(id);
    if (!m || m.principal !== caller.principal) throw new ServeRequestError(404, `unknown model_id '${id}'`);
    return m;
  }

  /** Model `id` whoever owns it (for the server's own bookkeeping), or undefined. */
  peek(id: string): ModelState | undefined {
    return this.#models.get(id);
  }

  /** Every live model. */
  all(): ModelState[] {
    return [...this.#models.values()];
  }

  /**
   * Queues `run` in `seq_id` order, counted against the session's and the server's load limits. `body` identifies the
   * request for duplicates (a protobuf body by its bytes). `reserve` runs after the duplicate and load checks (an
   * identical resubmission still gets its original request id); when it refuses (a name conflict), the `seq_id` is
   * consumed by a no-op whose result is `refusal.result`, so later requests of the model do not wait for it, and the
   * refusal is thrown (HTTP 409).
   */
  submit(
    caller: ServeCaller,
    m: ModelState,
    seqId: number | null | undefined,
    op: string,
    body: unknown,
    run: () => Promise<FutureBody>,
    reserve?: () => SubmitRefusal | undefined,
    booking?: StateBooking,
  ): { request_id: string; model_id: string } {
    this.touch(m);
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
        done = op === 'unload_model' ? this.#p.load.count(m.sessionId) : this.#p.load.take(m.sessionId);
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
      adm.record(this.#p.futures.create(caller.principal, Promise.resolve(refusal.result), errorBody));
      adm.start(async () => {});
      throw refusal.error;
    }
    let release!: (v: FutureBody | PromiseLike<FutureBody>) => void;
    let fail!: (e: unknown) => void;
    const result = new Promise<FutureBody>((res, rej) => {
      release = res;
      fail = rej;
    });
    const requestId = this.#p.futures.create(caller.principal, result, errorBody, () => {
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
        done ??= this.#p.load.count(m.sessionId);
        try {
          if (!this.#models.has(m.id)) throw new BackendInputError('model_id', `model '${m.id}' was unloaded`);
          release(await job());
          this.touch(m);
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
  touch(m: ModelState): void {
    const s = this.#p.sessions.peek(m.sessionId);
    if (s) s.lastSeen = Math.max(s.lastSeen, Date.now());
    this.#p.runs.touch(m.id);
  }

  /** Closes model `id`: its requests not yet run fail with `reason` at once, then its samplers and engine are freed. */
  async unload(id: string, reason = `model '${id}' was unloaded`): Promise<void> {
    const m = this.#models.get(id);
    if (!m) return;
    this.#models.delete(id);
    this.#p.sessions.peek(m.sessionId)?.models.delete(id);
    m.queue.clear(reason);
    for (const drop of [...m.unfinished]) drop(reason);
    for (const sid of m.ephemeral.splice(0)) this.#p.samplers.release(sid);
    for (const path of m.named) this.#p.samplers.releaseNamed(path);
    m.named.clear();
    await m.backend.close();
  }
}
