import { randomBytes } from 'node:crypto';
import type { ServeCaller } from './caller.js';
import { ServeRequestError } from './errors.js';

/** One client session: its models, sampling sessions and sampling calls in progress. */
export interface SessionState {
  readonly principal: string;
  lastSeen: number;
  readonly models: Set<string>;
  /** `create_sampling_session` ids, oldest first. */
  readonly samplingSessions: string[];
  /** Sampling calls in progress on this session's samplers: aborted when the session goes. */
  readonly sampling: Set<AbortController>;
}

/** `<prefix>_<32 hex>`: an id no client can guess. */
export const newId = (prefix: string): string => `${prefix}_${randomBytes(16).toString('hex')}`;

/** The live sessions, each owned by the principal that created it. */
export class SessionRegistry {
  readonly #sessions = new Map<string, SessionState>();

  get size(): number {
    return this.#sessions.size;
  }

  /** A new session of `principal`; answers its id. */
  create(principal: string): string {
    const id = newId('session');
    this.#sessions.set(id, { principal, lastSeen: Date.now(), models: new Set(), samplingSessions: [], sampling: new Set() });
    return id;
  }

  /** `caller`'s session `id`. @throws ServeRequestError 404 when unknown or another principal's. */
  of(caller: ServeCaller, id: string): SessionState {
    const s = this.#sessions.get(id);
    if (!s || s.principal !== caller.principal)
      throw new ServeRequestError(404, `unknown session_id '${id}' (create_session first; sessions expire without heartbeats)`);
    return s;
  }

  /** Session `id` whoever owns it (for the server's own bookkeeping), or undefined. */
  peek(id: string): SessionState | undefined {
    return this.#sessions.get(id);
  }

  delete(id: string): void {
    this.#sessions.delete(id);
  }

  /** Ids of `caller`'s sessions. */
  idsOf(caller: ServeCaller): string[] {
    return [...this.#sessions].filter(([, s]) => s.principal === caller.principal).map(([id]) => id);
  }

  /** Every session, for sweeps (a copy: the caller may end sessions while iterating). */
  entries(): [string, SessionState][] {
    return [...this.#sessions];
  }

  /** Time the server could not listen (a stalled event loop) does not count against any session. */
  forgiveStall(ms: number): void {
    for (const s of this.#sessions.values()) s.lastSeen += ms;
  }
}
