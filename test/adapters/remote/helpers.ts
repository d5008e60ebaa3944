import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ExecResult, RunRequest, Sandbox } from '../../../src/types/exec-result.js';

/** A scripted in-memory sandbox: `handler` decides each result (may wait on the abort signal). */
export function fakeSandbox(name: string, handler: (req: RunRequest, signal?: AbortSignal) => Promise<ExecResult> | ExecResult): Sandbox & { calls: number } {
  const sb = {
    name,
    calls: 0,
    async run(req: RunRequest, signal?: AbortSignal) {
      sb.calls += 1;
      return handler(req, signal);
    },
    async close() {},
  };
  return sb;
}

/** An `ok` result with `stdout`. */
export const okResult = (stdout: string, wallMs = 1): ExecResult => ({ status: 'ok', exitCode: 0, signal: null, stdout, stderr: '', truncated: false, wallMs });

/** Resolves after `ms` or rejects when `signal` aborts. */
export function delay(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(t);
        reject(signal.reason);
      },
      { once: true },
    );
  });
}

/** A raw HTTP server on 127.0.0.1 with a scripted handler (for protocol-level tests). */
export async function rawServer(
  handler: (req: IncomingMessage, body: string, res: ServerResponse) => void,
): Promise<{ url: string; server: Server; hits: () => number; close: () => Promise<void> }> {
  let hits = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.url === '/run_code') hits += 1;
      handler(req, Buffer.concat(chunks).toString('utf8'), res);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    server,
    hits: () => hits,
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}

/** Sends a JSON response. */
export function json(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(text);
}

/** A SandboxFusion `Success` body (as in its docs). */
export const SF_SUCCESS = {
  status: 'Success',
  message: '',
  compile_result: null,
  run_result: { status: 'Finished', execution_time: 0.0167, return_code: 0, stdout: 'Hello, world!\n', stderr: '' },
  executor_pod_name: null,
  files: {},
};
