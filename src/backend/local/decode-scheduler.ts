import type { SampledSequence, SamplingParams } from '../../types/sampling.js';
import { batchBucket, seqBucket } from './batching.js';
import { disposeCache, type DecodeKernels, type KVCache } from './decode-kernels.js';
import { drawToken, topLogprobs, type ResolvedSampling } from './host-sampling.js';
import type { Params } from './params.js';
import { mulberry32 } from './rng.js';
import { yieldToEventLoop } from '../../platform/host.js';

interface Request {
  readonly prompt: readonly number[];
  readonly n: number;
  readonly maxTokens: number;
  readonly stop: ReadonlySet<number>;
  readonly sampling: ResolvedSampling;
  /** Alternatives returned per position (`SamplingParams.topLogprobs`); 0: none. */
  readonly topLogprobs: number;
  readonly rng: () => number;
  readonly out: (SampledSequence | undefined)[];
  remaining: number;
  readonly resolve: (s: SampledSequence[]) => void;
  readonly reject: (e: unknown) => void;
  /** Set when the caller's signal aborted: the request's rows are freed and it is never resolved. */
  cancelled: boolean;
}

interface Row {
  readonly req: Request;
  readonly index: number;
  readonly tokens: number[];
  readonly logprobs: number[];
  /** Per position, the top alternatives (only when the request asked for them). */
  readonly top?: { token: number; logprob: number }[][];
  /** Position of the last token in `tokens` (the next decode input). */
  pos: number;
}

/**
 * Cache length for `n` positions: 64·2^k (smallest ≥ n), capped at `contextTokens`. Power-of-two
 * buckets bound the number of compiled decode kernels while keeping attention cost near the
 * longest live sequence instead of the full context.
 */
export function cacheBucket(n: number, contextTokens: number): number {
  let b = 64;
  while (b < n) b *= 2;
  return Math.min(b, contextTokens);
}

/**
 * Continuous batching over one frozen set of weights: concurrent `sample` calls share one
 * fixed-shape decode batch. New requests are prefilled into free rows between decode steps; the
 * batch grows or compacts between row buckets. Each request draws from its own seeded PRNG, so
 * its tokens do not depend on which other requests share the batch.
 */
export class DecodeScheduler {
  readonly #k: DecodeKernels;
  readonly #params: Params;
  readonly #maxRows: number;
  readonly #queue: Request[] = [];
  #rows: (Row | undefined)[] = [];
  #cache: KVCache | undefined;
  /** Current cache length in positions (a {@link cacheBucket}); attention cost scales with it. */
  #len = 0;
  #running = false;
  #autoSeed: number;

  constructor(kernels: DecodeKernels, params: Params, opts: { maxRows: number; seed: number }) {
    this.#k = kernels;
    this.#params = params;
    this.#maxRows = opts.maxRows;
    this.#autoSeed = opts.seed;
  }

  /** Enqueues a validated request (prompt length < context). */
  submit(prompt: readonly number[], params: SamplingParams): Promise<SampledSequence[]> {
    const n = params.numSamples ?? 1;
    const C = this.#k.cfg.contextTokens;
    const maxTokens = Math.max(0, Math.min(params.maxTokens, C - prompt.length));
    if (n === 0) return Promise.resolve([]);
    if (maxTokens === 0) {
      return Promise.resolve(
        Array.from({ length: n }, () => ({ tokens: [], logprobs: [], stopReason: 'length' as const, ...(params.topLogprobs ? { topLogprobs: [] } : {}) })),
      );
    }
    const seed = params.seed ?? (this.#autoSeed = (Math.imul(this.#autoSeed, 1664525) + 1013904223) >>> 0);
    const signal = params.signal;
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise((resolve, reject) => {
      const onAbort = () => this.#cancel(req, signal!.reason);
      const req: Request = {
        prompt,
        n,
        maxTokens,
        stop: new Set(params.stop ?? []),
        sampling: { temperature: params.temperature ?? 1, topP: params.topP ?? 1, topK: params.topK ?? 0 },
        topLogprobs: params.topLogprobs ?? 0,
        rng: mulberry32(seed),
        out: new Array(n).fill(undefined),
        remaining: n,
        resolve: (out) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(out);
        },
        reject: (e) => {
          signal?.removeEventListener('abort', onAbort);
          reject(e);
        },
        cancelled: false,
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#queue.push(req);
      if (!this.#running) void this.#run();
    });
  }

  /** Drops a request (queued or decoding): its rows are freed before the next decode step. */
  #cancel(req: Request, reason: unknown): void {
    if (req.cancelled || req.remaining === 0) return;
    req.cancelled = true;
    const q = this.#queue.indexOf(req);
    if (q >= 0) this.#queue.splice(q, 1);
    this.#rows = this.#rows.map((r) => (r?.req === req ? undefined : r));
    req.reject(reason);
  }

  async #run(): Promise<void> {
    this.#running = true;
    try {
      for (;;) {
        this.#admit();
        const active = this.#rows.filter((r) => r !== undefined).length;
        if (active === 0) {
          if (this.#queue.length === 0) break;
          continue;
        }
        const need = cacheBucket(Math.max(...this.#rows.map((r) => (r ? r.pos + 1 : 1))), this.#k.cfg.contextTokens);
        const shrinkRows = this.#rows.length > 1 && active <= this.#rows.length / 4;
        if (need > this.#len || need <= this.#len / 4 || shrinkRows) {
          this.#resize(shrinkRows ? batchBucket(active) : this.#rows.length, need);
        }
        this.#decodeOnce();
        // Let other async work (tool calls finishing, new sample() calls) run between steps.
        await yieldToEventLoop();
      }
    } catch (e) {
      const failed = new Set<Request>([...this.#queue, ...this.#rows.flatMap((r) => (r ? [r.req] : []))]);
      this.#queue.length = 0;
      this.#rows = [];
      disposeCache(this.#cache);
      this.#cache = undefined;
      for (const req of failed) req.reject(e);
    } finally {
      disposeCache(this.#cache);
      this.#cache = undefined;
      this.#len = 0;
      this.#rows = [];
      this.#running = false;
    }
  }

  /** Moves queued requests into free rows (growing the batch up to `maxRows`) and prefills them. */
  #admit(): void {
    while (this.#queue.length > 0) {
      const req = this.#queue[0]!;
      const active = this.#rows.filter((r) => r !== undefined).length;
      if (active > 0 && active + req.n > this.#maxRows) return;
      this.#queue.shift();
      const C = this.#k.cfg.contextTokens;
      const paddedLen = seqBucket(req.prompt.length, C);
      const len = Math.max(this.#len, cacheBucket(Math.max(paddedLen, req.prompt.length + 1), C));
      if (this.#rows.length - active < req.n || len > this.#len) {
        this.#resize(Math.max(this.#rows.length, batchBucket(active + req.n)), len);
      }
      const mask = new Float32Array(this.#rows.length);
      const slots: number[] = [];
      for (let i = 0; i < this.#rows.length && slots.length < req.n; i++) {
        if (this.#rows[i] === undefined) {
          slots.push(i);
          mask[i] = 1;
        }
      }
      let res: { logits: Float32Array; cache: KVCache };
      try {
        res = this.#k.prefill(this.#params, this.#cache!, req.prompt, paddedLen, mask);
      } catch (e) {
        this.#cache = undefined; // consumed by the failed call
        req.reject(e);
        throw e;
      }
      this.#cache = res.cache;
      slots.forEach((slot, index) => {
        const row: Row = { req, index, tokens: [], logprobs: [], ...(req.topLogprobs > 0 ? { top: [] } : {}), pos: req.prompt.length - 1 };
        this.#rows[slot] = row;
        this.#accept(slot, row, res.logits);
      });
    }
  }

  /** Draws the next token of `row` from `logits` (length V) and finishes the row if done. */
  #accept(slot: number, row: Row, logits: Float32Array): void {
    const req = row.req;
    const { token, logprob } = drawToken(logits, req.sampling, req.rng());
    row.tokens.push(token);
    row.logprobs.push(logprob);
    row.top?.push(topLogprobs(logits, req.sampling.temperature, req.topLogprobs));
    row.pos += 1;
    const stopped = req.stop.has(token);
    if (stopped || row.tokens.length >= req.maxTokens) {
      this.#rows[slot] = undefined;
      req.out[row.index] = {
        tokens: row.tokens,
        logprobs: row.logprobs,
        stopReason: stopped ? 'stop' : 'length',
        ...(row.top ? { topLogprobs: row.top } : {}),
      };
      if (--req.remaining === 0) req.resolve(req.out as SampledSequence[]);
    }
  }

  #decodeOnce(): void {
    const R = this.#rows.length;
    const tok = new Int32Array(R);
    const pos = new Int32Array(R);
    this.#rows.forEach((row, i) => {
      if (row) {
        tok[i] = row.tokens[row.tokens.length - 1]!;
        pos[i] = row.pos;
      }
    });
    const res = this.#k.step(this.#params, this.#cache!, tok, pos);
    this.#cache = res.cache;
    const V = this.#k.cfg.vocabSize;
    this.#rows.forEach((row, i) => {
      if (row) this.#accept(i, row, res.logits.subarray(i * V, (i + 1) * V));
    });
  }

  /** Re-lays the batch to `rows` rows (active rows first, in order) of `len` cache positions. */
  #resize(rows: number, len: number): void {
    const keep = this.#rows.flatMap((r, i) => (r ? [i] : []));
    const size = Math.max(rows, keep.length);
    if (this.#cache === undefined) {
      this.#cache = this.#k.emptyCache(size, len);
    } else {
      const idx = new Int32Array(size);
      keep.forEach((from, to) => {
        idx[to] = from;
      });
      this.#cache = this.#k.relayout(this.#cache, idx, len);
    }
    this.#len = len;
    const old = this.#rows;
    this.#rows = Array.from({ length: size }, (_, i) => (i < keep.length ? old[keep[i]!] : undefined));
  }
}
