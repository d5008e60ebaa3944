/**
 * The `seq_id` counter of one model (Tinker's per-`TrainingClient` counter): ids start at 1. Submissions run one at a
 * time in call order, and each takes its id when it is sent, so the server sees them in the order the calls were
 * made; results are awaited in parallel (submit `forwardBackward` and `optimStep` back to back, then await both).
 * An id is used up by a request the server accepted; whether a request it refused (or that failed in its future)
 * used up its id is the engine's rule (`EngineProfile.seq`): when it did not, the next request takes the same id.
 */
export class SeqOrder {
  #next = 1;
  #enqueued = 0;
  #tail: Promise<unknown> = Promise.resolve();

  /** Requests enqueued so far (a model that has taken none can still take `load_weights` as its first). */
  get issued(): number {
    return this.#enqueued;
  }

  /** The id the next submission will take. */
  get next(): number {
    return this.#next;
  }

  /**
   * Runs `submit(id)` after every earlier submission has settled, with the next unused id. The id is used up when
   * `submit` resolves, or when it rejects and `consumedOnError(error)` says the server used it up anyway. A failed
   * submission does not block later ones.
   */
  enqueue<T>(submit: (seqId: number) => Promise<T>, consumedOnError: (e: unknown) => boolean = () => true): Promise<T> {
    this.#enqueued += 1;
    const run = this.#tail.then(async () => {
      const id = this.#next;
      try {
        const r = await submit(id);
        this.#next = Math.max(this.#next, id + 1);
        return r;
      } catch (e) {
        if (consumedOnError(e)) this.#next = Math.max(this.#next, id + 1);
        throw e;
      }
    });
    this.#tail = run.catch(() => undefined);
    return run;
  }

  /**
   * A request accepted with `seqId` failed in its future on an engine where that does not use up the id (TuFT): the
   * next submission takes `seqId` again (requests already sent after it fail there too, and are rewound likewise).
   */
  rewind(seqId: number): void {
    this.#next = Math.min(this.#next, seqId);
  }
}
