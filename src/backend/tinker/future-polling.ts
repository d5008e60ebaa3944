import { BackendRequestError, BackendUnavailableError } from '../../errors/index.js';
import { RetrySchedule, retryAfterMs, sleep } from '../../util/retry.js';
import {
  answerError,
  detailOf,
  failureError,
  jsonOf,
  PROTOBUF,
  requestFailure,
  tinkerRetryPolicy,
  TransportFault,
  type HttpAnswer,
  type TinkerHttp,
} from './http.js';
import type { ResolvedTinkerOptions } from './options.js';
import { tinkerPath } from './protocol/routes.js';

/** How to submit one operation and read its result. */
export interface FutureOp<T> {
  /** Operation name for errors and `X-Tinker-Request-Type`, e.g. `forward_backward`. */
  readonly op: string;
  /** Submits the original request (again after a 410) and returns its `request_id`. */
  readonly submit: () => Promise<string>;
  /** Decodes a JSON result. */
  readonly json: (body: unknown) => T;
  /** Decodes a protobuf result; when set, `Accept` asks for protobuf first. */
  readonly proto?: (bytes: Uint8Array) => T;
}

/** `X-Tinker-Request-Type` values of the Python SDK, by operation. */
const REQUEST_TYPE: Readonly<Record<string, string>> = {
  create_model: 'CreateModel',
  forward_backward: 'ForwardBackward',
  forward: 'Forward',
  optim_step: 'OptimStep',
  save_weights: 'SaveWeights',
  load_weights: 'LoadWeights',
  save_weights_for_sampler: 'SaveWeightsForSampler',
  sample: 'Sample',
};

/** Reads `request_id` from a submit answer (`{ request_id }`, or SkyRL's `{ future_id, request_id }`). */
export function requestIdOf(op: string, a: HttpAnswer): string {
  const body = jsonOf(a) as Record<string, unknown> | undefined;
  const id = body?.['request_id'] ?? body?.['future_id'];
  if ((typeof id !== 'string' || id === '') && typeof id !== 'number') {
    throw new BackendRequestError(op, 'unknown', 'submit answer has no request_id');
  }
  return String(id);
}

/**
 * Polls `POST /api/v1/retrieve_future` until the result of `requestId` arrives (Tinker SDK's futures loop):
 * - 200 `{ type: "try_again" }` → poll again after `retry.tryAgainDelayMs`; `{ status: "complete_metadata" }` → poll
 *   again for the payload; `{ error, category }` → typed error (`user` → `BackendInputError`); else the result,
 *   decoded by the answer's content type (JSON, or protobuf when `op.proto` is set).
 * - 408 (the long poll expired) and a client-side poll timeout → poll again at once (the server is holding the poll);
 *   after `timeouts.silenceMs` without any HTTP answer → `BackendUnavailableError`.
 * - 5xx without an error body (the first retried at once), 429, 402 (billing pause), connection errors → backoff within the retry budget, then `BackendUnavailableError`.
 * - 410 (the promise expired) → resubmit the original request, at most `retry.max410` times.
 * - Whatever the answers, the whole wait ends after `timeouts.futureMs` with `BackendUnavailableError` (a server
 *   answering `try_again` forever, or holding every poll, is not waited on forever).
 * - 400 `{ detail }` or 5xx `{ detail }` (SkyRL's failed request) → `BackendRequestError`; a bare 400 is retried
 *   `retry.max400` times (proxies inject them); 401/403 → `BackendAuthError`; other statuses are final.
 */
export async function awaitFuture<T>(http: TinkerHttp, opts: ResolvedTinkerOptions, requestId: string, f: FutureOp<T>): Promise<T> {
  const clock = new RetrySchedule(tinkerRetryPolicy(opts.retry));
  /** The wait before the next retry of this run, or undefined once the retry budget is spent. */
  const nextDelay = (hintMs?: number): number | undefined => {
    const n = clock.next(hintMs);
    return 'delayMs' in n ? n.delayMs : undefined;
  };
  const url = http.url(tinkerPath('retrieve_future'));
  let id = requestId;
  let n400 = 0;
  let n410 = 0;
  let iteration = 0;
  let n5xx = 0;
  let lastAnswerAt = Date.now();
  const giveUpAt = Date.now() + opts.timeouts.futureMs;
  const overdue = () => new BackendUnavailableError(url, `${f.op}: no result within timeouts.futureMs = ${opts.timeouts.futureMs} ms`);
  const accept = f.proto ? `${PROTOBUF}, application/json;q=0.5` : 'application/json';
  for (;;) {
    const left = giveUpAt - Date.now();
    if (left <= 0) throw overdue();
    let a: HttpAnswer;
    try {
      a = await http.send(
        'POST',
        tinkerPath('retrieve_future'),
        { json: { request_id: id, allow_metadata_only: false } },
        {
          timeoutMs: Math.min(opts.timeouts.pollMs, left),
          accept,
          headers: { 'x-tinker-request-iteration': String(iteration++), 'x-tinker-request-type': REQUEST_TYPE[f.op] ?? f.op },
        },
      );
    } catch (e) {
      if (!(e instanceof TransportFault)) throw e;
      // A poll that outlives its deadline on a live connection: the server holds it (SkyRL: up to 300 s). Poll again,
      // unless the server has said nothing at all for `timeouts.silenceMs` (a hung process).
      if (e.heldTooLong) {
        if (Date.now() - lastAnswerAt > opts.timeouts.silenceMs) {
          throw new BackendUnavailableError(url, `${f.op}: no answer to any poll for ${opts.timeouts.silenceMs} ms`, { cause: e });
        }
        continue;
      }
      const delay = nextDelay();
      if (delay === undefined)
        throw new BackendUnavailableError(url, `${f.op}: no answer within the retry budget of ${opts.retry.budgetMs} ms (${e.message})`, { cause: e });
      await sleep(Math.min(delay, Math.max(0, giveUpAt - Date.now())), http.signal);
      continue;
    }
    const s = a.status;
    lastAnswerAt = Date.now();
    if (s < 500) n5xx = 0;
    if (s === 200) {
      clock.reset();
      if (a.contentType === PROTOBUF) {
        if (!f.proto) throw new BackendRequestError(f.op, 'unknown', 'unexpected protobuf result');
        // A plain Uint8Array view: protobufjs's Buffer reader does not bounds-check string lengths (a truncated body would decode).
        return f.proto(new Uint8Array(a.body.buffer, a.body.byteOffset, a.body.byteLength));
      }
      const body = jsonOf(a);
      const rec = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
      if (rec['type'] === 'try_again') {
        await sleep(Math.min(opts.retry.tryAgainDelayMs, Math.max(0, giveUpAt - Date.now())), http.signal);
        continue;
      }
      if (rec['status'] === 'complete_metadata') continue;
      const failure = requestFailure(body);
      if (failure) throw failureError(f.op, failure);
      if (body === undefined) throw new BackendRequestError(f.op, 'unknown', 'result is not JSON');
      return f.json(body);
    }
    if (s === 408) {
      clock.reset();
      continue;
    }
    if (s === 410) {
      if (n410 >= opts.retry.max410) throw new BackendRequestError(f.op, 'unknown', `future expired ${n410 + 1} times`, { status: 410 });
      n410 += 1;
      id = await f.submit();
      continue;
    }
    const body = jsonOf(a);
    const detail = detailOf(body) ?? requestFailure(body)?.message;
    if (s === 400 && detail === undefined) {
      if (n400 >= opts.retry.max400) throw new BackendRequestError(f.op, 'unknown', `HTTP 400 from retrieve_future ${n400 + 1} times`, { status: 400 });
      n400 += 1;
      continue;
    }
    if ((s === 429 || s === 402 || s >= 500) && detail === undefined) {
      const delay = nextDelay(s === 429 || s === 402 ? retryAfterMs(a.headers) : undefined);
      if (delay === undefined) throw new BackendUnavailableError(url, `${f.op}: HTTP ${s} until the retry budget of ${opts.retry.budgetMs} ms ran out`);
      // 5xx: the first retry goes at once (as the Python SDK); a run of them backs off.
      await sleep(s >= 500 && n5xx++ === 0 ? 0 : Math.min(delay, Math.max(0, giveUpAt - Date.now())), http.signal);
      continue;
    }
    throw answerError(f.op, url, a);
  }
}
