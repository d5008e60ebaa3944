import type { ExecResult, ExecStatus } from '../../src/types/exec-result.js';

/**
 * SandboxFusion `POST /run_code` request body (bytedance/SandboxFusion `sandbox/server/sandbox_api.py`).
 * Times are seconds (floats). `files`/`fetch_files` are accepted by SandboxFusion; agentrl's client
 * never sends files and `agentrl sandbox-serve` rejects non-empty `files`.
 */
export interface RunCodeRequest {
  /** Source code to run. */
  readonly code: string;
  /** SandboxFusion language name, e.g. `'python'`. */
  readonly language: string;
  /** Seconds; SandboxFusion default 10. */
  readonly compile_timeout?: number;
  /** Seconds of wall clock; SandboxFusion default 10. */
  readonly run_timeout?: number;
  /** MiB; `-1` = no limit. */
  readonly memory_limit_MB?: number;
  /** Text fed to the program's stdin. */
  readonly stdin?: string | null;
  /** Files to create before the run: path → base64 contents. */
  readonly files?: Readonly<Record<string, string | null>>;
  /** Paths whose contents the response should return in `files`. */
  readonly fetch_files?: readonly string[];
}

/**
 * agentrl's lossless extension carried inside `run_result` (SandboxFusion clients ignore unknown
 * fields), so an agentrl client talking to `agentrl sandbox-serve` gets back exactly the
 * {@link ExecResult} the server's sandbox produced.
 */
export interface AgentRLExtension {
  /** The {@link ExecResult} status. */
  readonly status: ExecStatus;
  /** Process exit code; `null` when killed by a signal or never started. */
  readonly exitCode: number | null;
  /** Signal name that ended the process, or `null`. */
  readonly signal: string | null;
  /** Whether stdout or stderr was cut to the output limit. */
  readonly truncated: boolean;
  /** Wall time of the run in milliseconds. */
  readonly wallMs: number;
  /** CPU time of the run in milliseconds, when the sandbox measures it. */
  readonly cpuMs?: number;
}

/** SandboxFusion `CommandRunResult`; `execution_time` in seconds. */
export interface CommandRunResult {
  /** `Finished` (ran to an exit), `Error` (could not run), or `TimeLimitExceeded`. */
  readonly status: 'Finished' | 'Error' | 'TimeLimitExceeded';
  /** Wall time in seconds, when measured. */
  readonly execution_time: number | null;
  /** Process exit code, or `null` when it never exited normally. */
  readonly return_code: number | null;
  /** Captured stdout. */
  readonly stdout: string | null;
  /** Captured stderr. */
  readonly stderr: string | null;
  /** agentrl's lossless result, present when the server is `agentrl sandbox-serve`. */
  readonly agentrl?: AgentRLExtension;
}

/** SandboxFusion `RunCodeResponse`. */
export interface RunCodeResponse {
  /** `Success` (ran, exit 0), `Failed` (ran, failed), or `SandboxError` (the sandbox itself failed). */
  readonly status: 'Success' | 'Failed' | 'SandboxError';
  /** Human-readable explanation (empty on success). */
  readonly message: string;
  /** Result of the compile step, for compiled languages; `null` otherwise. */
  readonly compile_result: CommandRunResult | null;
  /** Result of running the program; `null` when it never ran. */
  readonly run_result: CommandRunResult | null;
  /** Name of the server's executor that ran the call, when it reports one. */
  readonly executor_pod_name: string | null;
  /** Contents of the files asked for with `fetch_files`: path → base64. */
  readonly files: Readonly<Record<string, string>>;
}

const EXEC_STATUSES: ReadonlySet<string> = new Set(['ok', 'error', 'timeout', 'memory', 'output_limit', 'sandbox_error']);

/**
 * Maps one of our results onto the SandboxFusion response shape (what `sandbox-serve` answers):
 * `ok` → `Success`/`Finished`; `timeout` → `Failed`/`TimeLimitExceeded` (return_code null, as
 * SandboxFusion does); `error`, `memory`, `output_limit` → `Failed`/`Finished`; `sandbox_error` →
 * `SandboxError`/`Error`. The exact result rides along in `run_result.agentrl`.
 */
export function execResultToResponse(r: ExecResult): RunCodeResponse {
  const runStatus: CommandRunResult['status'] = r.status === 'timeout' ? 'TimeLimitExceeded' : r.status === 'sandbox_error' ? 'Error' : 'Finished';
  const status: RunCodeResponse['status'] = r.status === 'ok' ? 'Success' : r.status === 'sandbox_error' ? 'SandboxError' : 'Failed';
  return {
    status,
    message: r.status === 'ok' ? '' : r.status,
    compile_result: null,
    run_result: {
      status: runStatus,
      execution_time: r.wallMs / 1000,
      return_code: r.status === 'timeout' ? null : r.exitCode,
      stdout: r.stdout,
      stderr: r.stderr,
      agentrl: {
        status: r.status,
        exitCode: r.exitCode,
        signal: r.signal ?? null,
        truncated: r.truncated,
        wallMs: r.wallMs,
        ...(r.cpuMs === undefined ? {} : { cpuMs: r.cpuMs }),
      },
    },
    executor_pod_name: null,
    files: {},
  };
}

function validExtension(x: unknown): x is AgentRLExtension {
  if (typeof x !== 'object' || x === null) return false;
  const e = x as Record<string, unknown>;
  return typeof e['status'] === 'string' && EXEC_STATUSES.has(e['status']) && typeof e['wallMs'] === 'number' && typeof e['truncated'] === 'boolean';
}

/**
 * Maps a SandboxFusion response onto an {@link ExecResult}. Uses the `agentrl` extension when the
 * server is `agentrl sandbox-serve`; otherwise: `SandboxError` or `run_result.status: 'Error'` →
 * `sandbox_error`; a failed compile step → `error` with the compiler's output; `TimeLimitExceeded`
 * (compile or run) → `timeout`; return code 0 → `ok`; a trailing `MemoryError` on stderr → `memory`;
 * any other non-zero code → `error`. `wallMs` is the server's `execution_time` when given, else
 * `roundTripMs`. SandboxFusion reports neither truncation nor signals (`truncated: false`).
 */
export function responseToExecResult(resp: RunCodeResponse, roundTripMs: number): ExecResult {
  const run = resp.run_result;
  const wallOf = (c: CommandRunResult | null): number => (c && typeof c.execution_time === 'number' ? c.execution_time * 1000 : roundTripMs);
  const ext = run?.agentrl;
  if (run && validExtension(ext)) {
    return {
      status: ext.status,
      exitCode: typeof ext.exitCode === 'number' ? ext.exitCode : null,
      signal: ext.signal ?? null,
      stdout: run.stdout ?? '',
      stderr: run.stderr ?? '',
      truncated: ext.truncated,
      wallMs: ext.wallMs,
      ...(typeof ext.cpuMs === 'number' ? { cpuMs: ext.cpuMs } : {}),
    };
  }
  const base = (status: ExecStatus, c: CommandRunResult | null): ExecResult => ({
    status,
    exitCode: c && typeof c.return_code === 'number' ? c.return_code : null,
    signal: null,
    stdout: c?.stdout ?? '',
    stderr: c?.stderr ?? (status === 'sandbox_error' ? resp.message : ''),
    truncated: false,
    wallMs: wallOf(c),
  });
  if (resp.status === 'SandboxError') return base('sandbox_error', run);
  const compile = resp.compile_result;
  if (compile && compile.status === 'TimeLimitExceeded') return base('timeout', compile);
  if (compile && (compile.status === 'Error' || (compile.return_code ?? 0) !== 0)) return base('error', compile);
  if (!run || run.status === 'Error') return base('sandbox_error', run);
  if (run.status === 'TimeLimitExceeded') return { ...base('timeout', run), exitCode: null };
  if (run.return_code === 0) return base('ok', run);
  if (/(^|\n)MemoryError\b[^\n]*\n?$/.test(run.stderr ?? '')) return base('memory', run);
  return base('error', run);
}

/** True when `x` looks like a {@link RunCodeResponse} (the fields the mapping reads). */
export function isRunCodeResponse(x: unknown): x is RunCodeResponse {
  if (typeof x !== 'object' || x === null) return false;
  const r = x as Record<string, unknown>;
  return (r['status'] === 'Success' || r['status'] === 'Failed' || r['status'] === 'SandboxError') && 'run_result' in r;
}
