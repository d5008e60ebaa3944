/** What {@link SeqQueue.admit} decided for a request. */
export type Admission =
  /** New request: run `start()` to queue it (it runs when every lower `seq_id` has run). */
  | { readonly kind: 'new'; readonly start: (run: () => Promise<void>) => void; readonly record: (requestId: string) => void }
  /** The same `seq_id` with the same content was submitted before: answer with its request id. */
  | { readonly kind: 'duplicate'; readonly requestId: string }
  /** The same `seq_id` arrived before with other content (HTTP 409). */
  | { readonly kind: 'conflict'; readonly message: string };

/**
 * Runs one model's requests one at a time in `seq_id` order (Tinker §1.6): a request whose `seq_id` is ahead
 * waits until the lower ones have arrived and run. Requests without a `seq_id` run after everything already
 * released. `seq_id`s start at 1 (the Tinker client's first). A `seq_id` seen before answers the original
 * request id when the content matches (an idempotent retry) and is refused otherwise.
 */
export class SeqQueue {
  #next = 1;
  #tail: Promise<void> = Promise.resolve();
  readonly #waiting = new Map<number, () => Promise<void>>();
  readonly #seen = new Map<number, { readonly digest: string; requestId: string }>();

  /** The lowest `seq_id` not yet released to run. */
  get nextSeqId(): number {
    return this.#next;
  }

  /** Requests waiting for a lower `seq_id`. */
  get waiting(): number {
    return this.#waiting.size;
  }

  /** Decides what to do with a request carrying `seqId` (or none) and content `digest`. */
  admit(seqId: number | null | undefined, digest: string): Admission {
    if (seqId === null || seqId === undefined) {
      return { kind: 'new', start: (run) => this.#chain(run), record: () => {} };
    }
    const seen = this.#seen.get(seqId);
    if (seen) {
      if (seen.digest === digest) return { kind: 'duplicate', requestId: seen.requestId };
      return { kind: 'conflict', message: `seq_id ${seqId} was already used for a different request` };
    }
    const rec = { digest, requestId: '' };
    this.#seen.set(seqId, rec);
    return {
      kind: 'new',
      record: (requestId) => {
        rec.requestId = requestId;
      },
      start: (run) => {
        if (seqId < this.#next) {
          this.#chain(run);
          return;
        }
        this.#waiting.set(seqId, run);
        this.#drain();
      },
    };
  }

  #drain(): void {
    for (let run = this.#waiting.get(this.#next); run !== undefined; run = this.#waiting.get(this.#next)) {
      this.#waiting.delete(this.#next);
      this.#next += 1;
      this.#chain(run);
    }
  }

  #chain(run: () => Promise<void>): void {
    this.#tail = this.#tail.then(run, run);
  }
}
