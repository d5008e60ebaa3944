import type { ExecResult } from '../types/exec-result.js';
import type { CappedText } from './output.js';

/** What a backend observed about one finished (or killed) execution, before classification. */
export interface ExecOutcome {
  /** Killed because the wall-clock deadline passed. */
  readonly timedOut: boolean;
  /** Killed (or failed) because output reached the child's file-size limit. */
  readonly outputLimited: boolean;
  readonly exitCode: number | null;
  /** Signal name that ended the process, e.g. `'SIGKILL'`. */
  readonly signal: string | null;
  readonly stdout: CappedText;
  readonly stderr: CappedText;
  /** Wall time in ms, queueing excluded. */
  readonly wallMs: number;
  /** Child CPU time in ms, when known. */
  readonly cpuMs?: number;
}

const MEMORY_ERROR_LINE = /^(?:[\w.]*\.)?_?\w*MemoryError\b/;

/** True when the last non-empty stderr line is a Python `MemoryError` (or subclass, e.g. numpy's). */
export function looksLikeMemoryError(stderr: string): boolean {
  const lines = stderr.trimEnd().split('\n');
  const last = lines[lines.length - 1] ?? '';
  return MEMORY_ERROR_LINE.test(last.trim());
}

/**
 * Maps an observed outcome to the shared {@link ExecResult}. Precedence: `timeout` (deadline or
 * `SIGXCPU` from the CPU rlimit) > `output_limit` > `memory` (a `MemoryError` traceback, or
 * `SIGKILL` that nobody sent, i.e. the kernel OOM killer) > `ok` (exit 0) > `error`.
 */
export function classifyOutcome(o: ExecOutcome): ExecResult {
  let status: ExecResult['status'];
  if (o.timedOut || o.signal === 'SIGXCPU') status = 'timeout';
  else if (o.outputLimited) status = 'output_limit';
  else if (o.signal === 'SIGKILL' || (o.exitCode !== 0 && looksLikeMemoryError(o.stderr.text))) status = 'memory';
  else if (o.exitCode === 0) status = 'ok';
  else status = 'error';
  return {
    status,
    exitCode: o.exitCode,
    signal: o.signal,
    stdout: o.stdout.text,
    stderr: o.stderr.text,
    truncated: o.stdout.truncated || o.stderr.truncated,
    wallMs: o.wallMs,
    ...(o.cpuMs === undefined ? {} : { cpuMs: o.cpuMs }),
  };
}

/** A `sandbox_error` result: the sandbox (not the model's code) failed; `message` goes to stderr. */
export function sandboxErrorResult(message: string, wallMs = 0): ExecResult {
  return { status: 'sandbox_error', exitCode: null, signal: null, stdout: '', stderr: message, truncated: false, wallMs };
}
