import type { ExecResult, RunRequest, Sandbox, SandboxSession } from '../../src/types/exec-result.js';
import { SandboxClosedError, SandboxTimeoutError, SandboxUnavailableError, SessionsNotSupportedError } from '../../src/errors/sandbox-errors.js';
import { isRetriedStatus } from '../../src/errors/http-status.js';
import { Admission } from './admission.js';
import { Endpoint, type AttemptOutcome } from './endpoint.js';
import { resolveRemoteOptions, type RemoteSandboxOptions } from './options.js';
import { retry, RetryBudget, type RetryPolicy } from '../../src/util/retry.js';
import { isRunCodeResponse, responseToExecResult, type RunCodeRequest } from './wire.js';

/** Counters of one remote client, for tests and metrics. */
export interface RemoteSandboxStats {
  /** Calls admitted and not yet answered (at most `concurrency × urls.length`). */
  readonly inFlight: number;
  /** Calls queued for admission (at most `maxQueue`), not yet sent. */
  readonly waiting: number;
  /** Retries performed since creation. */
  readonly retries: number;
  /** Retries refused because the retry budget was spent. */
  readonly budgetExhausted: number;
  /** Every configured server: its URL, whether it is healthy now, and its calls in flight. */
  readonly endpoints: readonly { readonly url: string; readonly healthy: boolean; readonly outstanding: number }[];
}

/** A {@link Sandbox} that talks to SandboxFusion-compatible servers. */
export interface RemoteSandbox extends Sandbox {
  /** `false`: SandboxFusion's API (`/run_code`) has no sessions, and neither has `sandbox-serve` yet. */
  readonly supportsSessions: false;
  /** Always rejects: @throws SessionsNotSupportedError (SandboxClosedError after `close()`). */
  openSession(): Promise<SandboxSession>;
  /** The client's counters now (a snapshot). */
  stats(): RemoteSandboxStats;
  /** Pings every server now (`GET /v1/ping`) and updates health; resolves to the healthy count. */
  checkHealth(): Promise<number>;
}

/** The last attempt of a call: what the server answered (or the transport fault), and where. */
interface LastAttempt {
  readonly outcome: AttemptOutcome | undefined;
  readonly result: ExecResult | undefined;
  readonly ep: Endpoint | undefined;
}

/** Thrown inside a call's retries by an attempt worth repeating (transport fault, 502/503/504, a `SandboxError` answer); the call's `last` attempt says what it was. */
class RetryableAttempt extends Error {}

/**
 * Remote sandbox speaking SandboxFusion's `POST /run_code` (and `GET /v1/ping`) over undici pools —
 * to SandboxFusion itself or to `agentrl sandbox-serve`.
 *
 * - Admission: at most `concurrency × urls.length` calls in flight, `maxQueue` waiting, each waiting
 *   at most `queueTimeoutMs`.
 * - Routing: healthy server with the fewest outstanding requests (round-robin among ties); when
 *   none is healthy, all are tried so a recovered server is found without waiting for a ping.
 * - Retries (at most `retries` per call, and only while the shared retry budget allows): transport
 *   errors, HTTP 502/503/504 and `SandboxError` answers, with full-jitter exponential back-off.
 *   A code failure (`Failed`) is never retried. Each attempt is bounded by
 *   `timeoutMs + requestSlackMs`, so a call ends within
 *   `queueTimeoutMs + (retries + 1) × (timeoutMs + requestSlackMs) + retries × backoffCapMs`.
 *
 * `run` resolves with an {@link ExecResult} whenever a server answered (a `SandboxError` answer that
 * survives the retries becomes `status: 'sandbox_error'`).
 * @throws SandboxUnavailableError (from `run`) when no server could be reached after the retries,
 *   on a non-retryable HTTP status (4xx, 500) or a malformed body, or when the queue is full.
 * @throws SandboxTimeoutError (from `run`) when the queue wait or the last attempt timed out.
 * @throws SandboxClosedError after `close()`; the abort reason when `signal` aborts.
 * @throws ConfigError (synchronously) for invalid options.
 */
export function remoteSandbox(options: RemoteSandboxOptions): RemoteSandbox {
  const o = resolveRemoteOptions(options);
  const endpoints = o.urls.map(
    (url) =>
      new Endpoint(url, {
        connections: o.concurrency,
        connectTimeoutMs: o.connectTimeoutMs,
        ...(o.apiKey ? { apiKey: o.apiKey } : {}),
        ...(o.dispatcher ? { dispatcher: o.dispatcher(url) } : {}),
      }),
  );
  const admission = new Admission(o.concurrency * endpoints.length, o.maxQueue, o.queueTimeoutMs);
  let rr = 0;
  let retries = 0;
  let budgetExhausted = 0;
  const policy: RetryPolicy = {
    maxAttempts: o.retries + 1,
    backoff: { baseMs: o.backoffBaseMs, capMs: o.backoffCapMs, fullJitter: true, random: o.random },
    retryable: (e) => e instanceof RetryableAttempt,
    retryAfterMs: () => undefined,
    budget: new RetryBudget({ ratio: o.retryBudgetRatio }),
    onRetry: () => {
      retries += 1;
    },
    onGiveUp: (why) => {
      if (why === 'tokens') budgetExhausted += 1;
    },
  };
  let closed = false;
  const closeCtl = new AbortController();

  const healthTimer = setInterval(() => {
    for (const ep of endpoints) {
      if (!ep.healthy) void ep.ping(Math.min(o.healthCheckIntervalMs, 5000)).then((ok) => markHealth(ep, ok));
    }
  }, o.healthCheckIntervalMs);
  healthTimer.unref();

  function markHealth(ep: Endpoint, ok: boolean): void {
    ep.healthy = ok;
    ep.failures = ok ? 0 : ep.failures + 1;
  }

  function pick(exclude: Endpoint | undefined): Endpoint {
    const healthy = endpoints.filter((e) => e.healthy && e !== exclude);
    const pool = healthy.length > 0 ? healthy : endpoints.filter((e) => e !== exclude);
    const candidates = pool.length > 0 ? pool : endpoints;
    const least = Math.min(...candidates.map((e) => e.outstanding));
    const ties = candidates.filter((e) => e.outstanding === least);
    rr = (rr + 1) % 1_000_000;
    return ties[rr % ties.length] as Endpoint;
  }

  async function attemptLoop(req: RunRequest, signal: AbortSignal): Promise<ExecResult> {
    const timeoutMs = req.timeoutMs ?? o.timeoutMs;
    const attemptTimeoutMs = timeoutMs + o.requestSlackMs;
    const body: RunCodeRequest = {
      code: req.code,
      language: o.language,
      run_timeout: timeoutMs / 1000,
      compile_timeout: o.compileTimeoutMs / 1000,
      stdin: req.stdin ?? null,
      ...(o.memoryLimitMb === undefined ? {} : { memory_limit_MB: o.memoryLimitMb }),
    };
    const payload = JSON.stringify(body);
    let last: LastAttempt = { outcome: undefined, result: undefined, ep: undefined };
    const attempt = async (): Promise<ExecResult> => {
      const ep = pick(endpoints.length > 1 ? last.ep : undefined);
      const started = performance.now();
      const outcome = await ep.post('/run_code', payload, { timeoutMs: attemptTimeoutMs, maxBodyBytes: o.maxResponseBytes }, signal);
      last = { outcome, result: undefined, ep };
      if (outcome.kind === 'transport' || isRetriedStatus('sandbox', outcome.status)) {
        markHealth(ep, false);
        throw new RetryableAttempt();
      }
      if (outcome.status !== 200) {
        throw new SandboxUnavailableError(`remote sandbox ${ep.url} answered HTTP ${outcome.status}: ${outcome.body.slice(0, 500)}`);
      }
      let parsed: unknown;
      try {
        parsed = JSON.parse(outcome.body);
      } catch (cause) {
        throw new SandboxUnavailableError(`remote sandbox ${ep.url} sent a body that is not JSON`, { cause });
      }
      if (!isRunCodeResponse(parsed)) {
        throw new SandboxUnavailableError(`remote sandbox ${ep.url} sent an unexpected body: ${outcome.body.slice(0, 300)}`);
      }
      markHealth(ep, true);
      const result = responseToExecResult(parsed, performance.now() - started);
      if (result.status === 'sandbox_error' && parsed.status === 'SandboxError') {
        last = { outcome, result, ep };
        throw new RetryableAttempt();
      }
      return result;
    };
    try {
      return await retry(attempt, policy, signal);
    } catch (e) {
      if (!(e instanceof RetryableAttempt)) throw e;
    }
    if (last.result) return last.result;
    const out = last.outcome;
    if (out?.kind === 'transport' && out.timedOut) {
      throw new SandboxTimeoutError(attemptTimeoutMs, { cause: out.error });
    }
    const detail = out?.kind === 'transport' ? describe(out.error) : out ? `HTTP ${out.status}: ${out.body.slice(0, 300)}` : 'no attempt made';
    throw new SandboxUnavailableError(`remote sandbox unavailable (${last.ep?.url ?? '?'}): ${detail}`, {
      cause: out?.kind === 'transport' ? out.error : undefined,
    });
  }

  return {
    name: 'remote',
    supportsSessions: false,

    async openSession(): Promise<SandboxSession> {
      if (closed) throw new SandboxClosedError();
      throw new SessionsNotSupportedError('remote', "the server's API (SandboxFusion /run_code) has no stateful sessions");
    },

    async run(req: RunRequest, signal?: AbortSignal): Promise<ExecResult> {
      if (closed) throw new SandboxClosedError();
      const sig = signal ? AbortSignal.any([signal, closeCtl.signal]) : closeCtl.signal;
      const release = await admission.acquire(sig);
      try {
        return await attemptLoop(req, sig);
      } catch (e) {
        if (closed && closeCtl.signal.aborted && !signal?.aborted) throw new SandboxClosedError();
        throw e;
      } finally {
        release();
      }
    },

    stats(): RemoteSandboxStats {
      return {
        inFlight: admission.active,
        waiting: admission.waiting,
        retries,
        budgetExhausted,
        endpoints: endpoints.map((e) => ({ url: e.url, healthy: e.healthy, outstanding: e.outstanding })),
      };
    },

    async checkHealth(): Promise<number> {
      const oks = await Promise.all(endpoints.map((e) => e.ping(Math.max(1000, o.connectTimeoutMs))));
      endpoints.forEach((e, i) => {
        markHealth(e, oks[i] === true);
      });
      return oks.filter(Boolean).length;
    },

    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      clearInterval(healthTimer);
      admission.close();
      closeCtl.abort(new SandboxClosedError());
      await Promise.all(endpoints.map((e) => e.close()));
    },
  };
}

function describe(e: unknown): string {
  if (e instanceof Error) {
    const code = (e as { code?: unknown }).code;
    const cause = e.cause instanceof Error ? ` (${e.cause.message})` : '';
    return `${typeof code === 'string' ? `${code}: ` : ''}${e.message}${cause}`;
  }
  return String(e);
}
