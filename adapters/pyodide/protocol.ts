/** Messages between {@link pyodideSandbox} (the page) and its Web Worker (`worker.ts`). */

/** Page → worker: start Pyodide from `indexURL` (the folder serving the npm package's files). */
export interface InitMessage {
  readonly kind: 'init';
  readonly indexURL: string;
  /** Bytes kept per output stream; more ends the call with `output_limit`. */
  readonly maxOutputBytes: number;
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
  | { readonly kind: 'result'; readonly id: number; readonly exitCode: number; readonly stdout: string; readonly stderr: string }
  /** Output passed `maxOutputBytes`: the page ends the call (and replaces the worker) at once. */
  | { readonly kind: 'output-limit'; readonly id: number; readonly stdout: string; readonly stderr: string };

/** The part of a Web Worker (page side) the sandbox uses. */
export interface WorkerLike {
  postMessage(message: unknown): void;
  terminate(): void;
  addEventListener(type: 'message' | 'error', listener: (e: { data: WorkerReply; message?: string }) => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'message', listener: (e: { data: WorkerReply }) => void): void;
}
