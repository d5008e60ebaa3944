/**
 * Outcome class of one sandboxed execution.
 * - `ok`: exited 0. `error`: non-zero exit or exception. `timeout`: killed at its deadline.
 * - `memory`: killed for exceeding its memory limit. `output_limit`: output exceeded the byte cap.
 * - `sandbox_error`: the sandbox itself failed (not the model's code).
 */
export type ExecStatus = 'ok' | 'error' | 'timeout' | 'memory' | 'output_limit' | 'sandbox_error';

/** Result of running model-written code in a sandbox. One schema for every sandbox backend. */
export interface ExecResult {
  /** How the run ended: `ok` (exit 0), `error` (non-zero exit), `timeout`, `memory`, `output_limit`, or `sandbox_error` (the sandbox itself failed). */
  readonly status: ExecStatus;
  /** Process exit code; `null` when killed by a signal or never started. */
  readonly exitCode: number | null;
  /** Signal name that ended the process (e.g. `'SIGKILL'`), when known. */
  readonly signal?: string | null;
  /** Captured stdout, UTF-8 decoded with U+FFFD for invalid bytes, capped (tail kept). */
  readonly stdout: string;
  /** Captured stderr, same rules as `stdout`. */
  readonly stderr: string;
  /** True when stdout or stderr was cut by a byte cap. */
  readonly truncated: boolean;
  /** Wall-clock time of the call in milliseconds, queueing excluded. */
  readonly wallMs: number;
  /** CPU time of the child in milliseconds, when the backend can measure it. */
  readonly cpuMs?: number;
  /**
   * Session calls only: `true` when this call ran in a fresh interpreter because the session's
   * previous one ended (a timeout, crash, output flood or sandbox fault); the state built by
   * earlier calls is gone. Absent (or `false`) for the first call of a session and for plain calls.
   */
  readonly sessionReset?: boolean;
}

/** One execution request. */
export interface RunRequest {
  /** Source code to run (Python for the local/docker/remote sandboxes, JavaScript for isolated-vm). */
  readonly code: string;
  /** Per-call wall-clock limit in ms; defaults to the sandbox's `timeoutMs`. */
  readonly timeoutMs?: number;
  /** Optional stdin contents. */
  readonly stdin?: string;
}

/**
 * A place to run model-written code. Every backend (local subprocess, Docker, remote HTTP,
 * isolated-vm) implements this and passes the same conformance suite.
 * A fault of the code, or of a sandbox that still answers, is an {@link ExecResult} (`sandbox_error` for the
 * latter). `run` rejects only on abort, after `close()` (`SandboxClosedError`), or when a remote backend cannot be
 * reached at all (`SandboxUnavailableError`, `SandboxTimeoutError`); environments turn such rejections into
 * `sandbox_error` observations, so a sandbox fault never crashes the trainer.
 */
export interface Sandbox {
  /** Human-readable backend name, e.g. `'local'`, `'docker'`. */
  readonly name: string;
  /** Runs one program and resolves to its result, faults of the code included. Rejects only as the interface says: on abort of `signal`, after `close()` (`SandboxClosedError`), or when a remote backend cannot be reached (`SandboxUnavailableError`, `SandboxTimeoutError`). */
  run(req: RunRequest, signal?: AbortSignal): Promise<ExecResult>;
  /** Stops workers and kills anything still running (open sessions included). Idempotent. */
  close(): Promise<void>;
  /**
   * Capability flag: `true` when {@link Sandbox.openSession} is implemented and usable. A remote
   * sandbox may only learn it from its server (its `openSession` then rejects with
   * `SessionsNotSupportedError` where the server lacks them).
   */
  readonly supportsSessions?: boolean;
  /**
   * Opens a stateful interpreter session (see {@link SandboxSession}). Optional per backend; check
   * {@link Sandbox.supportsSessions}.
   * @throws SessionsNotSupportedError (rejects) when the backend or its server has no sessions;
   *   SandboxClosedError after `close()`.
   */
  openSession?(options?: SessionOptions): Promise<SandboxSession>;
}

/** Options of {@link Sandbox.openSession}. */
export interface SessionOptions {
  /** Default wall-clock limit of each call of the session, ms; defaults to the sandbox's `timeoutMs`. */
  readonly timeoutMs?: number;
}

/**
 * A stateful interpreter, like a notebook: globals, imports and files in the working directory
 * persist from one `run` to the next of this session and are invisible to every other session.
 * Each call keeps its own stdout/stderr, status, timeout and output cap. A call that times out,
 * crashes the interpreter or floods its output ends the session: the next call starts a fresh one
 * and its result says so (`sessionReset: true`). Calls of one session run one at a time, in order.
 */
export interface SandboxSession {
  /** Runs one call in the session. Rejects like {@link Sandbox.run} (abort, closed sandbox or session). */
  run(req: RunRequest, signal?: AbortSignal): Promise<ExecResult>;
  /** Ends the session and kills every process it started. Idempotent; later `run`s reject with `SandboxClosedError`. */
  close(): Promise<void>;
}
