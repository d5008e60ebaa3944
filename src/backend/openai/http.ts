import { SamplerHttpError, SamplerUnavailableError } from '../../errors/sampler-errors.js';
import { AgentRLError } from '../../errors/base.js';
import { readBounded, refuseRedirect, startDeadline } from '../../util/http-bounds.js';
import { retry, retryAfterMs } from '../../util/retry.js';

/** How {@link postJson} reaches the server. Durations in ms. */
export interface PostJsonOptions {
  readonly fetch: typeof fetch;
  readonly headers: Readonly<Record<string, string>>;
  readonly apiKey: string | undefined;
  /** Total deadline of one attempt: headers and the whole body (a slow drip does not extend it). */
  readonly timeoutMs: number;
  /** Largest answer body accepted, bytes; refused while streaming past it. */
  readonly maxResponseBytes: number;
  readonly maxRetries: number;
  readonly signal?: AbortSignal;
}

/** The server's message: OpenAI's `{ error: { message } }`, FastAPI's `{ detail }`, `{ message }`, or the raw text. */
function serverMessage(text: string): string {
  try {
    const v = JSON.parse(text) as { error?: { message?: unknown } | string; detail?: unknown; message?: unknown };
    const m = typeof v.error === 'object' ? v.error?.message : (v.error ?? v.detail ?? v.message);
    if (m !== undefined) return (typeof m === 'string' ? m : JSON.stringify(m)).slice(0, 2000);
  } catch {
    // not JSON: fall through
  }
  return text.slice(0, 2000);
}

async function once(url: string, body: unknown, o: PostJsonOptions): Promise<unknown> {
  const deadline = startDeadline(o.timeoutMs, o.signal);
  let res: Response;
  let text: string;
  try {
    res = await o.fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json',
        ...(o.apiKey ? { authorization: `Bearer ${o.apiKey}` } : {}),
        ...o.headers,
      },
      body: JSON.stringify(body),
      // Never followed: the prompt, the API key and custom headers go to `url` only.
      redirect: 'manual',
      signal: deadline.signal,
    });
    refuseRedirect(url, res.status, res.headers);
    text = res.body ? (await readBounded(res.body, o.maxResponseBytes, url, res.headers)).toString('utf8') : '';
  } catch (cause) {
    if (o.signal?.aborted) throw o.signal.reason ?? cause;
    if (AgentRLError.isInstance(cause)) throw cause; // ResponseTooLargeError, RedirectRefusedError: not retried
    const why = deadline.expired() ? `no complete answer within ${o.timeoutMs} ms` : `request failed: ${String((cause as Error)?.cause ?? cause)}`;
    throw new SamplerUnavailableError(url, why, { cause });
  } finally {
    deadline.dispose();
  }
  if (!res.ok) throw new SamplerHttpError(res.status, serverMessage(text), url, { retryAfterMs: retryAfterMs(res.headers) });
  try {
    return JSON.parse(text) as unknown;
  } catch (cause) {
    throw new SamplerUnavailableError(url, `answered HTTP ${res.status} with a body that is not JSON: ${text.slice(0, 200)}`, { cause });
  }
}

/**
 * POSTs `body` as JSON and returns the parsed JSON answer, retrying retryable failures (no answer, 408/409/429/5xx)
 * up to `maxRetries` times with backoff `min(500·2^k, 10_000)` ms, or the server's `retry-after` (capped at 60 s).
 * Each attempt has a total deadline of `timeoutMs`, its answer is refused past `maxResponseBytes`, and redirects are
 * refused (see `src/util/http-bounds.ts`).
 * @throws SamplerHttpError for an error status; SamplerUnavailableError when there is no usable answer;
 *   ResponseTooLargeError; RedirectRefusedError.
 */
export async function postJson(url: string, body: unknown, o: PostJsonOptions): Promise<unknown> {
  // The hint comes from SamplerHttpError.retryAfterMs (the default of the policy), capped at 60 s.
  return retry(() => once(url, body, o), { maxAttempts: o.maxRetries + 1, backoff: { baseMs: 500, capMs: 10_000 } }, o.signal);
}
