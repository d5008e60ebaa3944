/** Messages between {@link pyodideSandbox} (the page) and its Web Worker (`worker.ts`). */

/** Page → worker: start Pyodide from `indexURL` (the folder serving the npm package's files). */
export interface InitMessage {
  readonly kind: 'init';
  readonly indexURL: string;
  /** Bytes kept per output stream (first and last halves; the middle is cut with a marker). */
  readonly maxOutputBytes: number;
  /** Bytes written to one stream after which the call ends as `output_limit` (the worker is replaced). */
  readonly killAfterOutputBytes: number;
}

/** Page → worker: run one program in a reset interpreter. */
export interface RunMessage {
  readonly kind: 'run';
  readonly id: number;
  readonly code: string;
  readonly stdin: string;
}

/** Worker → page. */
export type WorkerReply =
  | { readonly kind: 'ready' }
  | { readonly kind: 'init-failed'; readonly message: string }
  | { readonly kind: 'result'; readonly id: number; readonly exitCode: number; readonly stdout: string; readonly stderr: string; readonly truncated: boolean }
  /** Output passed `maxOutputBytes`: the page ends the call (and replaces the worker) at once. */
  | { readonly kind: 'output-limit'; readonly id: number; readonly stdout: string; readonly stderr: string; readonly truncated: true };

/** The part of a Web Worker (page side) the sandbox uses. */
export interface WorkerLike {
  postMessage(message: unknown): void;
  terminate(): void;
  addEventListener(type: 'message' | 'error', listener: (e: { data: WorkerReply; message?: string }) => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'message', listener: (e: { data: WorkerReply }) => void): void;
}
