import type { ExecResult, ExecStatus } from '../../src/types/exec-result.js';
import { renderCapped, type CappedText } from '../../src/sandbox/output.js';
import { looksLikeMemoryError } from '../../src/sandbox/result.js';

/*
 * The in-container runner is `CONTAINER_RUNNER_SOURCE` (adapters/local/python: common.py + container.py), the
 * Python the local sandbox also runs model code with. It is started as
 * `python3 -I -c <source> <preload-json> <warmup-json>` so any image with a Python 3.8+ interpreter works.
 *
 * Protocol over the container's attached stdio (JSON lines):
 * - runner → host, once: `{"ready": true, "pid": n, "preloaded": [...], "failed": [...]}`
 * - host → runner: `{"id", "code", "stdin", "timeout_ms", "max_output_bytes", "kill_after_bytes"}`
 * - runner → host: `{"id", "status", "exit_code", "signal", "stdout", "stderr" (base64 of the first
 *   `max_output_bytes / 2` bytes per stream), "stdout_tail", "stderr_tail" (base64 of the last bytes
 *   beyond the head, at most the other half), "stdout_bytes", "stderr_bytes" (bytes seen), "wall_ms",
 *   "cpu_ms"}`
 *
 * Per call the runner wipes `/tmp` and `/dev/shm`, forks a child (fresh `__main__`, new session,
 * own pipes, per-call cwd `/tmp/work`), enforces the wall deadline itself, and after the child ends
 * (or at the deadline / output flood) SIGKILLs every other process in the container with
 * `kill(-1)` until none is left — so daemons, fork bombs and orphans never outlive the call.
 * The runner marks itself non-dumpable so code running as the same uid cannot open its
 * `/proc/<pid>/fd` to forge replies. Statuses: ok | error | timeout | memory | output_limit |
 * sandbox_error (OOM is read from the container cgroup's `oom_kill` counter, v1 or v2).
 *
 * Sessions (`"session": true` on a request; the container then serves one session): the first call
 * forks a session interpreter that keeps one `__main__` and cwd `/tmp/work` (not wiped) for every
 * later call; each call hands it fresh stdin/stdout/stderr pipes. Its reply adds `session_fresh`
 * (a new interpreter ran it) and `session_ended` (a timeout, flood or crash killed the session and
 * everything in the container). `{"id", "op": "session_close"}` kills and wipes the session.
 */

/** One request line sent to the in-container runner (protocol above). */
export interface RunnerRequest {
  readonly id: number;
  readonly code: string;
  readonly stdin: string | null;
  /** Wall-clock limit the runner enforces, ms. */
  readonly timeout_ms: number;
  /** Bytes kept per stream (half from the start, half from the end). */
  readonly max_output_bytes: number;
  /** Total bytes (both streams) after which the runner kills the call as `output_limit`. */
  readonly kill_after_bytes: number;
  /** Run in the container's session interpreter (started by the first such call). */
  readonly session?: boolean;
}

/** One reply line from the runner. */
export interface RunnerReply {
  readonly id: number;
  readonly status: ExecStatus;
  readonly exit_code: number | null;
  readonly signal: string | null;
  /** Base64 of the first `max_output_bytes` bytes of stdout. */
  readonly stdout: string;
  readonly stderr: string;
  /** Base64 of the last bytes past the head (empty unless the stream was longer than the cap). */
  readonly stdout_tail?: string;
  readonly stderr_tail?: string;
  /** Bytes the child wrote to stdout in total (kept or not). */
  readonly stdout_bytes: number;
  readonly stderr_bytes: number;
  readonly wall_ms: number;
  readonly cpu_ms: number | null;
  /** Session calls: a new session interpreter ran this call. */
  readonly session_fresh?: boolean;
  /** Session calls: the session ended with this call (timeout, flood, crash). */
  readonly session_ended?: boolean;
}

const STATUSES: ReadonlySet<string> = new Set(['ok', 'error', 'timeout', 'memory', 'output_limit', 'sandbox_error']);

/** Parses and shape-checks one runner reply; `undefined` for anything that is not a reply. */
export function parseRunnerReply(value: unknown): RunnerReply | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const r = value as Record<string, unknown>;
  if (typeof r['id'] !== 'number' || typeof r['status'] !== 'string' || !STATUSES.has(r['status'])) return undefined;
  if (typeof r['stdout'] !== 'string' || typeof r['stderr'] !== 'string') return undefined;
  return r as unknown as RunnerReply;
}

/**
 * Turns a runner reply into an {@link ExecResult}: head + tail bytes of each stream rendered with the
 * shared `renderCapped` (UTF-8 with U+FFFD, cuts on character boundaries, explicit
 * `[... N bytes truncated ...]` marker). A non-zero exit whose stderr ends in a Python
 * `MemoryError` is `memory`, as in the local sandbox.
 */
export function replyToResult(reply: RunnerReply): ExecResult {
  const stream = (head: string, tail: string | undefined, total: number): CappedText =>
    renderCapped({ head: Buffer.from(head, 'base64'), tail: Buffer.from(tail ?? '', 'base64'), totalBytes: total });
  const out = stream(reply.stdout, reply.stdout_tail, reply.stdout_bytes);
  const err = stream(reply.stderr, reply.stderr_tail, reply.stderr_bytes);
  const status = reply.status === 'error' && looksLikeMemoryError(err.text) ? 'memory' : reply.status;
  return {
    status,
    exitCode: reply.exit_code,
    signal: reply.signal,
    stdout: out.text,
    stderr: err.text,
    truncated: out.truncated || err.truncated,
    wallMs: Math.round(reply.wall_ms * 1000) / 1000,
    ...(typeof reply.cpu_ms === 'number' ? { cpuMs: Math.round(reply.cpu_ms * 1000) / 1000 } : {}),
  };
}
