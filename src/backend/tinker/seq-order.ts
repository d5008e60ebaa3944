/**
 * The `seq_id` counter of one model (Tinker's per-`TrainingClient` counter): ids start at 1, each is used for
 * exactly one request (a forward_backward chunk, optim_step, save/load), never skipped and never reused for other
 * content. Submissions run one at a time in id order, so the server sees them in the order the calls were made;
 * results are awaited in parallel (submit `forwardBackward` and `optimStep` back to back, then await both).
 */
export class SeqOrder {
  #next = 1;
  #tail: Promise<unknown> = Promise.resolve();

  /** Ids handed out so far. */
  get issued(): number {
    return this.#next - 1;
  }

  /**
   * Takes the next id now (synchronously, so call order is id order) and runs `submit(id)` after every earlier
   * submission has settled. A failed submission does not block later ones.
   */
  enqueue<T>(submit: (seqId: number) => Promise<T>): Promise<T> {
    const id = this.#next++;
    const run = this.#tail.then(() => submit(id));
    this.#tail = run.catch(() => undefined);
    return run;
  }
}
