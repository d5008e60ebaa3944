import { BackendRequestError } from '../../errors/index.js';
import { jsonOf, type TinkerHttp } from './http.js';
import { useJwtAuth } from './jwt.js';
import type { ResolvedTinkerOptions } from './options.js';
import { fetchServerConfig, TINKER_PROTOCOL_VERSION, type TinkerServerConfig } from './server-config.js';
import { stringField } from './json-wire.js';
import { tinkerPath } from './protocol/routes.js';

/**
 * A protocol session: `client/config` (and the JWT exchange when it enables it), `create_session` (its
 * `info_message` / `warning_message` / `error_message` go to `opts.onWarning` as `server_notice`), then `session_heartbeat` every `timeouts.heartbeatMs` on an unref'd timer
 * (never keeps the process alive) until `stop()`. Holds the per-session counters `model_seq_id` and
 * `sampling_session_seq_id`. Heartbeat failures are counted, not thrown (SkyRL unloads a session's models after
 * 300 s without one).
 */
export class TinkerSession {
  readonly id: string;
  #timer: NodeJS.Timeout | undefined;
  #stopped = false;
  #modelSeq = 0;
  #samplingSeq = 0;
  /** Heartbeats sent and failed so far. */
  readonly heartbeats = { sent: 0, failed: 0, lastOkAt: Date.now() };

  private constructor(
    id: string,
    readonly http: TinkerHttp,
    readonly opts: ResolvedTinkerOptions,
    /** The server's `/client/config` flags (defaults when it has none). */
    readonly config: TinkerServerConfig,
  ) {
    this.id = id;
  }

  /** Creates the session and starts its heartbeat. */
  static async create(http: TinkerHttp, opts: ResolvedTinkerOptions): Promise<TinkerSession> {
    const config = await fetchServerConfig(http);
    if (config.pjwtAuth) await useJwtAuth(http);
    const a = await http.call('create_session', tinkerPath('create_session'), {
      json: { tags: [...opts.sessionTags], user_metadata: {}, sdk_version: TINKER_PROTOCOL_VERSION, type: 'create_session' },
    });
    const body = jsonOf(a);
    const id = stringField(body, 'session_id');
    if (id === undefined) throw new BackendRequestError('create_session', 'unknown', 'answer has no session_id');
    for (const [field, level] of [
      ['error_message', 'error'],
      ['warning_message', 'warning'],
      ['info_message', 'info'],
    ] as const) {
      const message = stringField(body, field);
      if (message !== undefined) opts.onWarning({ code: 'server_notice', message: `${http.baseUrl} (${level}): ${message}` });
    }
    const s = new TinkerSession(id, http, opts, config);
    s.#schedule();
    return s;
  }

  /** Next `model_seq_id` (0, 1, …). */
  nextModelSeq(): number {
    return this.#modelSeq++;
  }

  /** Next `sampling_session_seq_id` (0, 1, …). */
  nextSamplingSeq(): number {
    return this.#samplingSeq++;
  }

  #schedule(): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => void this.#beat(), this.opts.timeouts.heartbeatMs);
    this.#timer.unref();
  }

  async #beat(): Promise<void> {
    this.#timer = undefined;
    if (this.#stopped) return;
    this.heartbeats.sent += 1;
    try {
      const a = await this.http.send(
        'POST',
        tinkerPath('session_heartbeat'),
        { json: { session_id: this.id, type: 'session_heartbeat' } },
        { timeoutMs: this.opts.timeouts.heartbeatMs },
      );
      if (a.status >= 200 && a.status < 300) this.heartbeats.lastOkAt = Date.now();
      else this.heartbeats.failed += 1;
    } catch {
      this.heartbeats.failed += 1;
    }
    this.#schedule();
  }

  /** Stops the heartbeat; no timer is left behind. */
  stop(): void {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
