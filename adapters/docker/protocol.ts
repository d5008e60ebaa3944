import type { ExecResult, ExecStatus } from '../../src/types/exec-result.js';

/** One request line sent to the in-container runner (see `runner-source.ts`). */
export interface RunnerRequest {
  readonly id: number;
  readonly code: string;
  readonly stdin: string | null;
  /** Wall-clock limit the runner enforces, ms. */
  readonly timeout_ms: number;
  /** Bytes kept per stream. */
  readonly max_output_bytes: number;
  /** Total bytes (both streams) after which the runner kills the call as `output_limit`. */
  readonly kill_after_bytes: number;
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
  /** Bytes the child wrote to stdout in total (kept or not). */
  readonly stdout_bytes: number;
  readonly stderr_bytes: number;
  readonly wall_ms: number;
  readonly cpu_ms: number | null;
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

const decoder = new TextDecoder('utf-8', { fatal: false });

/** Marker appended to a stream that was cut by the byte cap. */
export const TRUNCATION_MARKER = '\n[... output truncated ...]\n';

/**
 * Turns a runner reply into an {@link ExecResult}: base64 → bytes → UTF-8 with U+FFFD for invalid
 * sequences (a multi-byte character cut by the cap becomes one U+FFFD), truncation marker appended
 * to every stream whose total exceeded what was kept.
 */
export function replyToResult(reply: RunnerReply): ExecResult {
  const out = Buffer.from(reply.stdout, 'base64');
  const err = Buffer.from(reply.stderr, 'base64');
  const outCut = reply.stdout_bytes > out.length;
  const errCut = reply.stderr_bytes > err.length;
  const result: ExecResult = {
    status: reply.status,
    exitCode: reply.exit_code,
    signal: reply.signal,
    stdout: decoder.decode(out) + (outCut ? TRUNCATION_MARKER : ''),
    stderr: decoder.decode(err) + (errCut ? TRUNCATION_MARKER : ''),
    truncated: outCut || errCut,
    wallMs: Math.round(reply.wall_ms * 1000) / 1000,
    ...(reply.cpu_ms === null || reply.cpu_ms === undefined ? {} : { cpuMs: Math.round(reply.cpu_ms * 1000) / 1000 }),
  };
  return result;
}
