/** Why {@link FairAdmission.acquire} refused a request (each maps to HTTP 503). */
export type AdmissionRefusal = 'queue_full' | 'queue_timeout' | 'displaced' | 'closed';

/** Outcome of {@link FairAdmission.acquire}: a slot (call `release` once when done) or a refusal. */
export type AdmissionResult = { readonly ok: true; readonly release: () => void } | { readonly ok: false; readonly reason: AdmissionRefusal };

interface Waiter {
  readonly client: string;
  readonly settle: (r: AdmissionResult) => void;
}

/** Limits of a {@link FairAdmission}. */
export interface FairAdmissionLimits {
  /** Slots in all. */
  readonly maxInFlight: number;
  /** Slots one client may hold at once. */
  readonly maxInFlightPerClient: number;
  /** Waiters in all (0: no queue). */
  readonly maxQueued: number;
  /** Longest wait for a slot, ms. */
  readonly queueTimeoutMs: number;
}

/**
 * In-flight limit with a fair queue across clients. A request gets a slot at once when one is free
 * and its client holds fewer than `maxInFlightPerClient`; else it waits. A freed slot goes to the
 * waiting client holding the fewest slots (ties: the one served longest ago, then the earliest
 * waiter): clients take turns, so one client's backlog of long calls delays another client's call
 * by at most one call, not by the whole backlog.
 * When the queue is full, the newest waiter of the client with the most waiters is refused to make
 * room (or the new request, if its client is that one): a single client cannot fill the queue
 * against the others.
 */
export class FairAdmission {
  readonly #limits: FairAdmissionLimits;
  #inFlight = 0;
  #queued = 0;
  #closed = false;
  readonly #held = new Map<string, number>();
  /** When each active client (holding slots or waiting) was last given a slot; forgotten when it goes idle. */
  readonly #lastGrant = new Map<string, number>();
  #grants = 0;
  /** Per client, its waiters in arrival order; a client's entry exists only while it has waiters. */
  readonly #queues = new Map<string, { readonly since: number; readonly w: Waiter }[]>();
  #seq = 0;

  constructor(limits: FairAdmissionLimits) {
    this.#limits = limits;
  }

  /** Slots held now. */
  get inFlight(): number {
    return this.#inFlight;
  }

  /** Clients remembered for turn-taking (those holding slots or waiting); for tests: bounded by activity, not history. */
  get activeClients(): number {
    return this.#lastGrant.size;
  }

  /** Requests waiting now. */
  get queued(): number {
    return this.#queued;
  }

  /**
   * Asks for a slot for `client`. Resolves at once or when a slot is handed over; `signal` aborting
   * while waiting removes the waiter (resolves `{ ok: false, reason: 'closed' }`).
   */
  acquire(client: string, signal?: AbortSignal): Promise<AdmissionResult> {
    if (this.#closed) return Promise.resolve({ ok: false, reason: 'closed' });
    if (this.#canRun(client)) return Promise.resolve(this.#grant(client));
    if (this.#limits.maxQueued === 0) return Promise.resolve({ ok: false, reason: 'queue_full' });
    if (this.#queued >= this.#limits.maxQueued) {
      const victim = this.#heaviestQueue();
      const mine = this.#queueOf(client)?.length ?? 0;
      if (!victim || victim.client === client || victim.size <= mine) return Promise.resolve({ ok: false, reason: 'queue_full' });
      const w = this.#popNewest(victim.client);
      w?.settle({ ok: false, reason: 'displaced' });
    }
    return new Promise<AdmissionResult>((resolve) => {
      let done = false;
      const timer = setTimeout(() => finish({ ok: false, reason: 'queue_timeout' }, true), this.#limits.queueTimeoutMs);
      const onAbort = (): void => finish({ ok: false, reason: 'closed' }, true);
      const w: Waiter = { client, settle: (r) => finish(r, false) };
      const finish = (r: AdmissionResult, remove: boolean): void => {
        if (done) {
          if (r.ok) r.release();
          return;
        }
        done = true;
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        if (remove) this.#remove(w);
        resolve(r);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#push(w);
      if (signal?.aborted) onAbort();
    });
  }

  /** Refuses every waiter (`closed`); later calls are refused too. Slots already held stay valid. */
  close(): void {
    this.#closed = true;
    for (const [client] of [...this.#queues]) {
      let w: Waiter | undefined;
      while ((w = this.#popNewest(client))) w.settle({ ok: false, reason: 'closed' });
    }
  }

  #canRun(client: string): boolean {
    return this.#inFlight < this.#limits.maxInFlight && (this.#held.get(client) ?? 0) < this.#limits.maxInFlightPerClient;
  }

  #grant(client: string): AdmissionResult {
    this.#inFlight += 1;
    this.#lastGrant.set(client, ++this.#grants);
    this.#held.set(client, (this.#held.get(client) ?? 0) + 1);
    let released = false;
    const release = (): void => {
      if (released) return;
      released = true;
      this.#inFlight -= 1;
      const n = (this.#held.get(client) ?? 1) - 1;
      if (n === 0) this.#held.delete(client);
      else this.#held.set(client, n);
      if (n === 0 && !this.#queues.has(client)) this.#lastGrant.delete(client);
      this.#dispatch();
    };
    return { ok: true, release };
  }

  /** Hands free slots to waiters: fewest slots held first, then the client served longest ago, then the earliest waiter. */
  #dispatch(): void {
    while (this.#inFlight < this.#limits.maxInFlight && this.#queued > 0) {
      let best: string | undefined;
      let bestKey: [number, number, number] = [Infinity, Infinity, Infinity];
      for (const [client, q] of this.#queues) {
        const held = this.#held.get(client) ?? 0;
        if (held >= this.#limits.maxInFlightPerClient) continue;
        const key: [number, number, number] = [held, this.#lastGrant.get(client) ?? 0, q[0]?.since ?? Infinity];
        if (key[0] < bestKey[0] || (key[0] === bestKey[0] && (key[1] < bestKey[1] || (key[1] === bestKey[1] && key[2] < bestKey[2])))) {
          best = client;
          bestKey = key;
        }
      }
      if (best === undefined) return;
      const w = this.#popOldest(best);
      if (!w) return;
      w.settle(this.#grant(best));
    }
  }

  #queueOf(client: string): Waiter[] | undefined {
    const q = this.#queues.get(client);
    return q?.map((e) => e.w);
  }

  #push(w: Waiter): void {
    const q = this.#queues.get(w.client) ?? [];
    q.push({ since: this.#seq++, w });
    this.#queues.set(w.client, q);
    this.#queued += 1;
  }

  #remove(w: Waiter): void {
    const q = this.#queues.get(w.client);
    if (!q) return;
    const i = q.findIndex((e) => e.w === w);
    if (i < 0) return;
    q.splice(i, 1);
    this.#queued -= 1;
    if (q.length === 0) this.#queues.delete(w.client);
    if (q.length === 0 && !this.#held.has(w.client)) this.#lastGrant.delete(w.client);
  }

  #popOldest(client: string): Waiter | undefined {
    const q = this.#queues.get(client);
    const e = q?.shift();
    if (!e) return undefined;
    this.#queued -= 1;
    if (q!.length === 0) this.#queues.delete(client);
    return e.w;
  }

  #popNewest(client: string): Waiter | undefined {
    const q = this.#queues.get(client);
    const e = q?.pop();
    if (!e) return undefined;
    this.#queued -= 1;
    if (q!.length === 0) this.#queues.delete(client);
    if (q!.length === 0 && !this.#held.has(client)) this.#lastGrant.delete(client);
    return e.w;
  }

  #heaviestQueue(): { client: string; size: number } | undefined {
    let best: { client: string; size: number } | undefined;
    for (const [client, q] of this.#queues) if (!best || q.length > best.size) best = { client, size: q.length };
    return best;
  }
}
