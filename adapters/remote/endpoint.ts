import { Pool, type Dispatcher } from 'undici';
import { readBounded } from '../../src/util/http-bounds.js';

/** Outcome of one HTTP attempt against one endpoint. */
export type AttemptOutcome =
  | { readonly kind: 'response'; readonly status: number; readonly body: string }
  /** No usable HTTP response: connect/reset/socket error, or the attempt's own deadline. */
  | { readonly kind: 'transport'; readonly error: unknown; readonly timedOut: boolean };

/**
 * One sandbox server: an undici `Pool` plus the counters the router needs (outstanding requests,
 * health). Marked unhealthy on a transport failure or a 5xx; healthy again after a successful
 * request or a `GET /v1/ping` that answers `pong`.
 */
export class Endpoint {
  outstanding = 0;
  healthy = true;
  /** Consecutive failed attempts (transport or 5xx). */
  failures = 0;
  readonly #pool: Dispatcher;
  readonly #base: string;
  readonly #origin: string;
  readonly #auth: Record<string, string>;

  constructor(
    readonly url: string,
    opts: { readonly connections: number; readonly connectTimeoutMs: number; readonly dispatcher?: Dispatcher; readonly apiKey?: string },
  ) {
    const u = new URL(url);
    this.#base = u.pathname.replace(/\/+$/, '');
    this.#origin = u.origin;
    this.#auth = opts.apiKey ? { authorization: `Bearer ${opts.apiKey}` } : {};
    this.#pool =
      opts.dispatcher ?? new Pool(u.origin, { connections: opts.connections, pipelining: 1, connectTimeout: opts.connectTimeoutMs, keepAliveTimeout: 10_000 });
  }

  /**
   * One `POST {url}{path}`. Never rejects except with the caller's abort reason.
   * @param limits.timeoutMs - deadline for the whole attempt (headers and body).
   * @param limits.maxBodyBytes - larger responses are cut off and reported as transport failures.
   */
  async post(path: string, body: string, limits: { readonly timeoutMs: number; readonly maxBodyBytes: number }, signal?: AbortSignal): Promise<AttemptOutcome> {
    const { timeoutMs, maxBodyBytes } = limits;
    const deadline = AbortSignal.timeout(timeoutMs);
    const combined = signal ? AbortSignal.any([signal, deadline]) : deadline;
    this.outstanding += 1;
    try {
      const res = await this.#pool.request({
        origin: this.#origin,
        path: this.#base + path,
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json', ...this.#auth },
        body,
        signal: combined,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
      let size = 0;
      const chunks: Buffer[] = [];
      for await (const chunk of res.body) {
        const b = chunk as Buffer;
        size += b.length;
        if (size > maxBodyBytes) {
          res.body.destroy();
          return { kind: 'transport', error: new Error(`response larger than ${maxBodyBytes} bytes`), timedOut: false };
        }
        chunks.push(b);
      }
      return { kind: 'response', status: res.statusCode, body: Buffer.concat(chunks).toString('utf8') };
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      return { kind: 'transport', error, timedOut: deadline.aborted || isTimeoutError(error) };
    } finally {
      this.outstanding -= 1;
    }
  }

  /** `GET {url}/v1/ping`; true when the server answers 200 with `pong` (JSON string or plain). */
  async ping(timeoutMs: number): Promise<boolean> {
    try {
      const res = await this.#pool.request({
        origin: this.#origin,
        path: `${this.#base}/v1/ping`,
        method: 'GET',
        headers: this.#auth,
        signal: AbortSignal.timeout(timeoutMs),
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
      // A ping answer is a few bytes: a server streaming more is not healthy (and is not read further).
      const text = (await readBounded(res.body, 4096, this.url, res.headers)).toString('utf8');
      return res.statusCode === 200 && text.includes('pong');
    } catch {
      return false;
    }
  }

  /** Closes the pool's sockets (in-flight requests are aborted). */
  async close(): Promise<void> {
    await this.#pool.destroy().catch(() => undefined);
  }
}

function isTimeoutError(e: unknown): boolean {
  const code = typeof e === 'object' && e !== null ? (e as { code?: unknown }).code : undefined;
  return (
    code === 'UND_ERR_HEADERS_TIMEOUT' ||
    code === 'UND_ERR_BODY_TIMEOUT' ||
    code === 'UND_ERR_CONNECT_TIMEOUT' ||
    (e instanceof DOMException && e.name === 'TimeoutError')
  );
}
