/** The two concurrency limits of a rollout call; both hold in every mode (round-synchronous and streaming). */
export interface RolloutConcurrency {
  /** Groups rolling out at the same time. @default unbounded */
  readonly maxConcurrentGroups?: number;
  /**
   * Trajectories in flight at the same time. A group starts when `groupSize` slots are free (or when nothing is in
   * flight, so a limit below `groupSize` runs one group at a time); each trajectory frees its slot when it ends.
   * @default unbounded
   */
  readonly maxConcurrentTrajectories?: number;
}

/** One admitted group: frees its trajectory slots as its trajectories end, and its group slot when it ends. */
export interface AdmittedGroup {
  /** Frees `n` trajectory slots (a trajectory ended); never more than the group holds. */
  releaseTrajectories(n: number): void;
  /** The group ended: frees its group slot and whatever trajectory slots it still holds. Idempotent. */
  end(): void;
}

/**
 * Admission of groups under {@link RolloutConcurrency}. `tryStart()` is synchronous (for a pump loop);
 * `start()` waits in FIFO order for room.
 */
export class RolloutAdmission {
  readonly #maxGroups: number;
  readonly #maxTrajectories: number;
  readonly #groupSize: number;
  readonly #waiting: Array<() => void> = [];
  #groups = 0;
  #trajectories = 0;

  constructor(limits: RolloutConcurrency, groupSize: number) {
    this.#maxGroups = limits.maxConcurrentGroups ?? Infinity;
    this.#maxTrajectories = limits.maxConcurrentTrajectories ?? Infinity;
    this.#groupSize = groupSize;
  }

  /** Trajectories admitted and not yet ended. */
  get trajectoriesInFlight(): number {
    return this.#trajectories;
  }

  /** Whether a group may start now. */
  hasRoom(): boolean {
    if (this.#groups === 0) return true;
    return this.#groups < this.#maxGroups && this.#trajectories + this.#groupSize <= this.#maxTrajectories;
  }

  /** Admits a group when there is room now; `undefined` when there is not. */
  tryStart(): AdmittedGroup | undefined {
    if (this.#waiting.length > 0 || !this.hasRoom()) return undefined;
    return this.#admit();
  }

  /** Admits a group as soon as there is room, after every group that asked before it. */
  start(): Promise<AdmittedGroup> {
    if (this.#waiting.length === 0 && this.hasRoom()) return Promise.resolve(this.#admit());
    return new Promise<AdmittedGroup>((resolve) => this.#waiting.push(() => resolve(this.#admit())));
  }

  #admit(): AdmittedGroup {
    let held = this.#groupSize;
    let ended = false;
    this.#groups++;
    this.#trajectories += held;
    const free = (n: number) => {
      const k = Math.min(n, held);
      held -= k;
      this.#trajectories -= k;
    };
    return {
      releaseTrajectories: (n) => {
        free(n);
        this.#admitWaiting();
      },
      end: () => {
        if (ended) return;
        ended = true;
        free(held);
        this.#groups--;
        this.#admitWaiting();
      },
    };
  }

  /** Admits waiting groups, in order, while there is room (each admission counts at once). */
  #admitWaiting(): void {
    while (this.#waiting.length > 0 && this.hasRoom()) this.#waiting.shift()!();
  }
}
