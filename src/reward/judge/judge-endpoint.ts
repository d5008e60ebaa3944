/**
 * A judge behind an OpenAI-compatible chat completions endpoint, with the bounds of every agentrl HTTP client
 * (`src/util/http-bounds.ts`): redirects refused, the answer's size capped while streaming, a total deadline.
 *
 * Hazard guarded: `fetch` follows a `307` to wherever `Location` points, re-sending the body (the trajectory) and
 * custom headers (`x-api-key`) there, and counts that server's score; `res.json()` reads a 300 MB answer whole.
 */
import type { Message } from '../../types/message.js';
import { AgentRLError } from '../../errors/base.js';
import { SamplerHttpError, SamplerResponseError, SamplerUnavailableError } from '../../errors/sampler-errors.js';
import { readBounded, refuseRedirect, startDeadline } from '../../util/http-bounds.js';

/** Default {@link EndpointJudge.maxResponseBytes}: 4 MiB (a chat completion of a few thousand tokens is tens of KiB). */
export const JUDGE_MAX_RESPONSE_BYTES = 4 * 1024 * 1024;
/** Default {@link EndpointJudge.timeoutMs}, ms. */
export const JUDGE_REQUEST_TIMEOUT_MS = 60_000;

/** A judge model behind an OpenAI-compatible chat completions endpoint (`agentrl serve`'s `/v1`, vLLM, a hosted API). */
export interface EndpointJudge {
  /** Base URL ending in `/v1`, e.g. `'http://127.0.0.1:8000/v1'`. Redirects are refused: give the final URL. */
  readonly baseURL: string;
  /** Model name sent in each request. */
  readonly model: string;
  /** Bearer token sent as `Authorization`, when the endpoint needs one. */
  readonly apiKey?: string;
  /** Extra request headers (sent to `baseURL` only: a redirect is refused, never followed). */
  readonly headers?: Readonly<Record<string, string>>;
  /**
   * Largest answer accepted, bytes: refused at once when `Content-Length` announces more, else as soon as the bytes
   * streamed pass it (the rest is never read). Past it the attempt fails with `ResponseTooLargeError` and the
   * judgement is not retried. @default 4 MiB ({@link JUDGE_MAX_RESPONSE_BYTES})
   */
  readonly maxResponseBytes?: number;
  /**
   * Total deadline of one request (connect, headers and the whole body; a body dripped a byte at a time does not
   * extend it), ms. The judgement's own `timeoutMs` bounds all its attempts together. @default 60000
   */
  readonly timeoutMs?: number;
}

/** Settings of one endpoint call. */
export interface EndpointCallOptions {
  readonly maxTokens: number;
  readonly temperature: number;
  readonly signal: AbortSignal;
}

/** The server's message: OpenAI's `{ error: { message } }`, `{ detail }`, `{ message }`, or the raw text, cut short. */
function serverMessage(text: string): string {
  try {
    const v = JSON.parse(text) as { error?: { message?: unknown } | string; detail?: unknown; message?: unknown };
    const m = typeof v.error === 'object' ? v.error?.message : (v.error ?? v.detail ?? v.message);
    if (m !== undefined) return (typeof m === 'string' ? m : JSON.stringify(m)).slice(0, 500);
  } catch {
    // not JSON
  }
  return text.slice(0, 500);
}

/**
 * One chat completion of `messages` from the endpoint: `choices[0].message.content`.
 * @throws RedirectRefusedError for a 3xx (nothing is sent to its `Location`); ResponseTooLargeError past
 *   `maxResponseBytes`; SamplerHttpError for another non-2xx status; SamplerUnavailableError when there is no complete
 *   answer (connection error, `timeoutMs`); SamplerResponseError for a body without a message; the signal's reason
 *   when `o.signal` aborts.
 */
export async function completeAtEndpoint(judge: EndpointJudge, messages: readonly Message[], o: EndpointCallOptions): Promise<string> {
  const url = `${judge.baseURL.replace(/\/$/, '')}/chat/completions`;
  const timeoutMs = judge.timeoutMs ?? JUDGE_REQUEST_TIMEOUT_MS;
  const deadline = startDeadline(timeoutMs, o.signal);
  let status: number;
  let text: string;
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json',
        ...(judge.apiKey ? { authorization: `Bearer ${judge.apiKey}` } : {}),
        ...(judge.headers ?? {}),
      },
      body: JSON.stringify({ model: judge.model, messages, max_tokens: o.maxTokens, temperature: o.temperature }),
      // Never followed: the trajectory, the key and custom headers go to `url` only.
      redirect: 'manual',
      signal: deadline.signal,
    });
    status = res.status;
    refuseRedirect(url, res.status, res.headers);
    text = res.body ? (await readBounded(res.body, judge.maxResponseBytes ?? JUDGE_MAX_RESPONSE_BYTES, url, res.headers)).toString('utf8') : '';
  } catch (cause) {
    if (o.signal.aborted) throw o.signal.reason ?? cause;
    if (AgentRLError.isInstance(cause)) throw cause;
    const why = deadline.expired() ? `no complete answer within ${timeoutMs} ms` : `request failed: ${String((cause as Error)?.cause ?? cause)}`;
    throw new SamplerUnavailableError(url, why, { cause });
  } finally {
    deadline.dispose();
  }
  if (status < 200 || status >= 300) throw new SamplerHttpError(status, serverMessage(text), url);
  let body: { choices?: { message?: { content?: unknown } | null }[] } | undefined;
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    throw new SamplerResponseError('(body)', null, `the judge endpoint answered HTTP ${status} with a body that is not JSON: ${text.slice(0, 200)}`);
  }
  const message = body?.choices?.[0]?.message;
  // `content: null` is a reply with no final answer (e.g. a reasoning parser's `reasoning_content` cut by max_tokens):
  // no verdict, retried like one; a body with no message at all is the endpoint's fault.
  if (message && message.content === null) return '';
  if (typeof message?.content !== 'string') throw new SamplerResponseError('choices[0].message.content', null, 'the judge endpoint answered without a message');
  return message.content;
}
