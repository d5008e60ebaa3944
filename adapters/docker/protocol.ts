import type { ExecResult, ExecStatus } from '../../src/types/exec-result.js';
import { renderCapped, type CappedText } from '../../src/sandbox/output.js';
import { looksLikeMemoryError } from '../../src/sandbox/result.js';

/** One request line sent to the in-container runner (see `runner-source.ts`). */
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
