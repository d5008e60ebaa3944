/** What {@link SeqQueue.admit} decided for a request. */
export type Admission =
  /**
   * New request: run `start()` to queue it (it runs when every lower `seq_id` has run). `expire` is called instead
   * of `run` when the request waited `waitTimeoutMs` for a lower `seq_id` that never came.
   */
  | {
      readonly kind: 'new';
      readonly start: (run: () => Promise<void>, expire?: (message: string) => void) => void;
      readonly record: (requestId: string) => void;
      /** Whether it will be held for a lower `seq_id` (not released to run at `start`). */
      readonly held: boolean;
      /** Forgets the admission (the request was refused for another reason): its `seq_id` stays unused. */
      readonly cancel: () => void;
    }
  /** The same `seq_id` with the same content was submitted before: answer with its request id. */
  | { readonly kind: 'duplicate'; readonly requestId: string }
  /** The same `seq_id` arrived before with other content (HTTP 409). */
  | { readonly kind: 'conflict'; readonly message: string }
  /** Ahead of a missing `seq_id`, and the held requests are at their count or byte limit (HTTP 429: retry later). */
  | { readonly kind: 'full'; readonly message: string };

/** Bounds of the requests a {@link SeqQueue} holds while they wait for a lower `seq_id`. */
export interface SeqQueueLimits {
  /** Held requests at most. */
  readonly maxWaiting: number;
  /** Their bytes (as given to `admit`) at most. */
  readonly maxWaitingBytes: number;
  /** Longest wait of one held request, ms. */
  readonly waitTimeoutMs: number;
}

/** `seq_id`s remembered for idempotent retries, below the next one to run. */
const SEEN_WINDOW = 1024;

interface Held {
  run: (() => Promise<void>) | undefined;
  readonly expire: ((message: string) => void) | undefined;
  readonly bytes: number;
  readonly timer: NodeJS.Timeout | undefined;
}

/**
 * Runs one model's requests one at a time in `seq_id` order (Tinker §1.6): a request whose `seq_id` is ahead
 * waits until the lower ones have arrived and run. Requests without a `seq_id` run after everything already
 * released. `seq_id`s start at 1 (the Tinker client's first). A `seq_id` seen before answers the original
 * request id when the content matches (an idempotent retry) and is refused otherwise. Runs start in a later
 * macrotask than the request that released them, so the HTTP answer to that request goes out first.
 * Requests held for a missing `seq_id` are bounded in count, bytes and time (`limits`); one that times out is
 * failed and its place skipped, so later ones still run once the gap before it is filled.
 */
export class SeqQueue {
  #next = 1;
  #tail: Promise<void> = Promise.resolve();
  readonly #waiting = new Map<number, Held>();
  readonly #seen = new Map<number, { readonly digest: string; requestId: string }>();
  readonly #limits: SeqQueueLimits;
  #waitingBytes = 0;

  constructor(limits: Partial<SeqQueueLimits> = {}) {
    this.#limits = {
      maxWaiting: limits.maxWaiting ?? 64,
      maxWaitingBytes: limits.maxWaitingBytes ?? 64 * 1024 * 1024,
      waitTimeoutMs: limits.waitTimeoutMs ?? 120_000,
    };
  }

  /** The lowest `seq_id` not yet released to run. */
  get nextSeqId(): number {
    return this.#next;
  }

  /** Requests waiting for a lower `seq_id`. */
  get waiting(): number {
    return this.#waiting.size;
  }

  /** Bytes of the requests waiting for a lower `seq_id`. */
  get waitingBytes(): number {
    return this.#waitingBytes;
  }

  /** Decides what to do with a request carrying `seqId` (or none), content `digest` and size `bytes`. */
  admit(seqId: number | null | undefined, digest: string, bytes = 0): Admission {
    if (seqId === null || seqId === undefined) {
      return { kind: 'new', start: (run) => this.#chain(run), record: () => {}, held: false, cancel: () => {} };
    }
    const seen = this.#seen.get(seqId);
    if (seen) {
      if (seen.digest === digest) return { kind: 'duplicate', requestId: seen.requestId };
      return { kind: 'conflict', message: `seq_id ${seqId} was already used for a different request` };
    }
    if (seqId < this.#next - SEEN_WINDOW) return { kind: 'conflict', message: `seq_id ${seqId} is far behind the next one (${this.#next}); it ran long ago` };
    if (seqId > this.#next) {
      const l = this.#limits;
      if (this.#waiting.size >= l.maxWaiting || this.#waitingBytes + bytes > l.maxWaitingBytes) {
        return {
          kind: 'full',
          message: `seq_id ${seqId} is ahead of the missing seq_id ${this.#next}, and ${this.#waiting.size} requests (${this.#waitingBytes} bytes) already wait for it (limits: ${l.maxWaiting} requests, ${l.maxWaitingBytes} bytes); send the missing one first`,
        };
      }
    }
    const rec = { digest, requestId: '' };
    this.#seen.set(seqId, rec);
    return {
      kind: 'new',
      held: seqId > this.#next,
      cancel: () => {
        if (this.#seen.get(seqId) === rec) this.#seen.delete(seqId);
      },
      record: (requestId) => {
        rec.requestId = requestId;
      },
      start: (run, expire) => {
        if (seqId < this.#next) {
          this.#chain(run);
          return;
        }
        const waitsForGap = seqId > this.#next;
        const timer = waitsForGap
          ? setTimeout(() => {
              const h = this.#waiting.get(seqId);
              if (!h || h.run === undefined) return;
              h.run = undefined; // its place stays, empty, so the order of later seq_ids holds
              this.#waitingBytes -= h.bytes;
              expire?.(`seq_id ${seqId} waited ${this.#limits.waitTimeoutMs} ms for seq_id ${this.#next}, which never arrived`);
            }, this.#limits.waitTimeoutMs)
          : undefined;
        timer?.unref();
        this.#waiting.set(seqId, { run, expire, bytes, timer });
        this.#waitingBytes += bytes;
        this.#drain();
      },
    };
  }

  /** Fails every held request with `message` (the model is going away) and holds no more. */
  clear(message: string): void {
    for (const h of this.#waiting.values()) {
      clearTimeout(h.timer);
      if (h.run !== undefined) h.expire?.(message);
    }
    this.#waiting.clear();
    this.#waitingBytes = 0;
  }

  #drain(): void {
    for (let h = this.#waiting.get(this.#next); h !== undefined; h = this.#waiting.get(this.#next)) {
      this.#waiting.delete(this.#next);
      clearTimeout(h.timer);
      this.#next += 1;
      if (h.run !== undefined) {
        this.#waitingBytes -= h.bytes;
        this.#chain(h.run);
      }
    }
    if (this.#seen.size > 2 * SEEN_WINDOW) {
      for (const id of this.#seen.keys()) if (id < this.#next - SEEN_WINDOW) this.#seen.delete(id);
    }
  }

  // Each run starts in a later macrotask (setImmediate), never in the microtasks of the request that queued it:
  // the engine blocks the thread for the whole call, and the submit's answer ({request_id}) must be written first.
  #chain(run: () => Promise<void>): void {
    const deferred = () => new Promise<void>((resolve) => setImmediate(resolve)).then(run);
    this.#tail = this.#tail.then(deferred, deferred);
  }
}
