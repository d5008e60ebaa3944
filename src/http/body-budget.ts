import { Transform, type TransformCallback } from 'node:stream';

/**
 * Bytes of request bodies held at once across all connections of one server. A request reserves its
 * declared `Content-Length` up front (or each chunk as it arrives, when chunked) and gives it all back
 * once its response has finished or its connection closed.
 */
export class BodyBudget {
  #used = 0;
  #peak = 0;

  constructor(readonly maxBytes: number) {}

  /** Bytes reserved now. */
  get used(): number {
    return this.#used;
  }

  /** Most bytes ever reserved at once. */
  get peak(): number {
    return this.#peak;
  }

  /** Reserves `n` bytes; false (nothing reserved) when that would exceed `maxBytes`. */
  reserve(n: number): boolean {
    if (n <= 0) return true;
    if (this.#used + n > this.maxBytes) return false;
    this.#used += n;
    if (this.#used > this.#peak) this.#peak = this.#used;
    return true;
  }

  /** Gives back `n` bytes reserved earlier. */
  release(n: number): void {
    this.#used = Math.max(0, this.#used - n);
  }
}

/** An error a Fastify reply turns into its `statusCode` (thrown by {@link meterBody}). */
export class HttpRefusal extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'HttpRefusal';
  }
}

/**
 * Passes a request body through unchanged while charging it to `budget`: `declared` bytes
 * (the `Content-Length`) are reserved by the caller up front; bytes beyond them (chunked bodies,
 * or a body longer than declared) are reserved as they arrive. Fails the stream with a 503
 * {@link HttpRefusal} when the budget is spent. `charged(n)` reports each extra reservation so the
 * caller can give it back later.
 */
export function meterBody(budget: BodyBudget, declared: number, charged: (n: number) => void): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _enc, done: TransformCallback) {
      seen += chunk.length;
      const extra = Math.min(chunk.length, seen - declared);
      if (extra > 0) {
        if (!budget.reserve(extra)) {
          done(new HttpRefusal(503, 'BODY_BUDGET', 'server busy: too many request bodies in progress'));
          return;
        }
        charged(extra);
      }
      done(null, chunk);
    },
  });
}
