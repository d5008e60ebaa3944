import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import type { Sandbox } from '../../src/types/exec-result.js';
import { AgentRLError } from '../../src/errors/base.js';
import { execResultToResponse } from './wire.js';

/** Options of {@link createSandboxServer}. */
export interface SandboxServerOptions {
  /** `language` values accepted. @default `['nodejs', 'javascript', 'js']` for an isolated-vm sandbox, else `['python', 'python3']` */
  readonly languages?: readonly string[];
  /** Largest request body, bytes. @default 8 MiB */
  readonly maxBodyBytes?: number;
  /** Calls run at once; more get HTTP 503 (clients retry). The sandbox applies its own limit too. @default 1024 */
  readonly maxInFlight?: number;
  /** Upper bound on `run_timeout`, ms. @default 300000 */
  readonly maxTimeoutMs?: number;
}

/** A SandboxFusion-compatible HTTP server in front of one of our sandboxes. */
export interface SandboxServer {
  readonly server: Server;
  /** Starts listening; port 0 picks a free port. Resolves with the base URL (`http://host:port`). */
  listen(opts?: { readonly port?: number; readonly host?: string }): Promise<{ readonly url: string; readonly port: number; readonly host: string }>;
  /** Stops accepting, drops open connections (in-flight calls are aborted). Does not close the sandbox. */
  close(): Promise<void>;
}

const requestSchema = z.object({
  code: z.string(),
  language: z.string(),
  compile_timeout: z.number().positive().optional(),
  run_timeout: z.number().positive().optional(),
  memory_limit_MB: z.number().optional(),
  stdin: z.string().nullable().optional(),
  files: z.record(z.string(), z.string().nullable()).optional(),
  fetch_files: z.array(z.string()).optional(),
});

function send(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent || res.destroyed) return;
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function readBody(req: IncomingMessage, limit: number): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    let size = 0;
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > limit) {
        resolve(undefined);
        req.resume();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/**
 * Exposes `sandbox` over SandboxFusion's API: `POST /run_code` (request/response as
 * bytedance/SandboxFusion, plus the lossless `run_result.agentrl` extension) and `GET /v1/ping`
 * (`"pong"`). A client that disconnects aborts its call. Status codes: 200 for every executed
 * call (whatever the code did); 422 for an invalid body, an unsupported language or non-empty
 * `files`; 413 for a body over `maxBodyBytes`; 503 when `maxInFlight` calls are running or the
 * sandbox throws a retryable error; 500 for anything else. Nothing here binds a port until `listen`.
 */
export function createSandboxServer(sandbox: Sandbox, options: SandboxServerOptions = {}): SandboxServer {
  const languages = new Set(
    options.languages ?? (sandbox.name.includes('isolated-vm') ? ['nodejs', 'javascript', 'js'] : ['python', 'python3']),
  );
  const maxBody = options.maxBodyBytes ?? 8 * 1024 * 1024;
  const maxInFlight = options.maxInFlight ?? 1024;
  const maxTimeoutMs = options.maxTimeoutMs ?? 300_000;
  let inFlight = 0;

  async function runCode(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const text = await readBody(req, maxBody);
    if (text === undefined) return send(res, 413, { detail: `body larger than ${maxBody} bytes` });
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return send(res, 422, { detail: 'body is not JSON' });
    }
    const parsed = requestSchema.safeParse(json);
    if (!parsed.success) {
      return send(res, 422, { detail: parsed.error.issues.map((i) => ({ loc: ['body', ...i.path.map(String)], msg: i.message })) });
    }
    const body = parsed.data;
    if (!languages.has(body.language)) {
      return send(res, 422, { detail: `language '${body.language}' is not served here (served: ${[...languages].join(', ')})` });
    }
    if (body.files && Object.keys(body.files).length > 0) {
      return send(res, 422, { detail: '`files` is not supported by agentrl sandbox-serve' });
    }
    if (inFlight >= maxInFlight) return send(res, 503, { detail: `server busy (${inFlight} calls running)` });
    inFlight += 1;
    const ctl = new AbortController();
    const onClose = (): void => {
      if (!res.writableEnded) ctl.abort(new Error('client disconnected'));
    };
    res.on('close', onClose);
    try {
      const timeoutMs = Math.min(maxTimeoutMs, Math.round((body.run_timeout ?? 10) * 1000));
      const result = await sandbox.run({ code: body.code, timeoutMs, ...(body.stdin ? { stdin: body.stdin } : {}) }, ctl.signal);
      send(res, 200, execResultToResponse(result));
    } catch (e) {
      if (ctl.signal.aborted) return;
      const retryable = AgentRLError.isInstance(e) && e.retryable;
      send(res, retryable ? 503 : 500, { detail: e instanceof Error ? `${e.name}: ${e.message}` : String(e) });
    } finally {
      inFlight -= 1;
      res.off('close', onClose);
    }
  }

  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method === 'GET' && path === '/v1/ping') return send(res, 200, 'pong');
    if (req.method === 'POST' && path === '/run_code') {
      runCode(req, res).catch((e: unknown) => send(res, 500, { detail: String(e) }));
      return;
    }
    send(res, 404, { detail: 'Not Found' });
  });
  server.keepAliveTimeout = 30_000;
  server.headersTimeout = 60_000;
  server.requestTimeout = 0;

  return {
    server,
    listen(opts = {}) {
      const host = opts.host ?? '127.0.0.1';
      return new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(opts.port ?? 0, host, () => {
          server.off('error', reject);
          const addr = server.address() as AddressInfo;
          const h = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
          resolve({ url: `http://${h}:${addr.port}`, port: addr.port, host: addr.address });
        });
      });
    },
    close() {
      return new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
