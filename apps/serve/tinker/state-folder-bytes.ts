import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { ServeRequestError } from './errors.js';
import type { ServeLimits } from './serve-limits.js';

/**
 * State-folder bytes a save books: `take` reserves its estimated size (or throws the refusal) when it is admitted,
 * `commit` replaces the reservation with what was written, and `settle` (when its future settles) frees a reservation
 * never committed.
 */
export interface StateBooking {
  take(): void;
  commit(writtenBytes: number, replacedBytes: number): void;
  settle(): void;
}

/**
 * Checkpoint bytes in the state folder, written or reserved, per session and in all, against
 * `maxStateBytesPerSession` and `maxStateBytes`. A save is booked at its estimated size before it is queued.
 */
export class StateFolderBytes {
  readonly #limits: Pick<ServeLimits, 'maxStateBytesPerSession' | 'maxStateBytes'>;
  /** Estimated bytes of one checkpoint from the model's shape (0 when unknown). */
  readonly #shapeEstimate: () => number;
  readonly #bySession = new Map<string, number>();
  #total = 0;
  /** Size of the largest checkpoint written (the estimate when the shape is unknown or the files are larger). */
  #largest = 0;

  constructor(limits: Pick<ServeLimits, 'maxStateBytesPerSession' | 'maxStateBytes'>, shapeEstimate: () => number) {
    this.#limits = limits;
    this.#shapeEstimate = shapeEstimate;
  }

  /** Bytes held or reserved in all. */
  get total(): number {
    return this.#total;
  }

  /** Adds `delta` bytes (negative frees) to `sessionId`'s count and the total; never below 0. */
  add(sessionId: string, delta: number): void {
    const left = Math.max(0, (this.#bySession.get(sessionId) ?? 0) + delta);
    if (left === 0) this.#bySession.delete(sessionId);
    else this.#bySession.set(sessionId, left);
    this.#total = Math.max(0, this.#total + delta);
  }

  /** A {@link StateBooking} of one save by session `sessionId`. */
  booking(sessionId: string): StateBooking {
    let reserved = 0;
    let open = true;
    return {
      take: () => {
        const L = this.#limits;
        const need = Math.max(this.#shapeEstimate(), this.#largest);
        const mine = this.#bySession.get(sessionId) ?? 0;
        if (mine + need > L.maxStateBytesPerSession) {
          throw new ServeRequestError(
            400,
            `state folder: this session's checkpoints hold ${mine} bytes and one more needs about ${need} (maxStateBytesPerSession ${L.maxStateBytesPerSession}); delete a checkpoint first`,
          );
        }
        if (this.#total + need > L.maxStateBytes) {
          throw new ServeRequestError(
            400,
            `state folder: checkpoints hold ${this.#total} bytes and one more needs about ${need} (maxStateBytes ${L.maxStateBytes}); delete a checkpoint first`,
          );
        }
        reserved = need;
        this.add(sessionId, need);
      },
      commit: (written, replaced) => {
        if (!open) return;
        open = false;
        this.#largest = Math.max(this.#largest, written);
        this.add(sessionId, written - replaced - reserved);
        reserved = 0;
      },
      settle: () => {
        if (!open) return;
        open = false;
        this.add(sessionId, -reserved);
        reserved = 0;
      },
    };
  }
}

/** Bytes of the files directly in `dir` (a checkpoint directory is flat); 0 when it does not exist. */
export async function dirBytes(dir: string): Promise<number> {
  let total = 0;
  for (const f of await readdir(dir).catch(() => [] as string[])) {
    const st = await stat(join(dir, f)).catch(() => undefined);
    if (st?.isFile()) total += st.size;
  }
  return total;
}
