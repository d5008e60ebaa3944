import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { McpServerError } from '../../errors/env-errors.js';
import type { McpHttpServer, McpStdioServer, McpToolResult } from './types.js';

/** Last bytes of the server's stderr kept for error messages. */
const STDERR_TAIL_BYTES = 2048;

/** One open connection to an MCP server (a process or an HTTP session). */
export interface McpConnection {
  readonly client: Client;
  /** True once the transport closed (the process exited, the session ended, or `close()` ran). */
  readonly closed: boolean;
  /** What the server last wrote to stderr (stdio only), for error messages. */
  stderrTail(): string;
  callTool(name: string, args: Readonly<Record<string, unknown>>, opts: { signal?: AbortSignal; timeoutMs: number }): Promise<McpToolResult>;
  close(): Promise<void>;
}

function isStdio(s: McpStdioServer | McpHttpServer): s is McpStdioServer {
  return 'command' in s;
}

/** Describes the server in messages: the command line or the URL. */
export function describeServer(s: McpStdioServer | McpHttpServer): string {
  return isStdio(s) ? [s.command, ...(s.args ?? [])].join(' ') : s.url;
}

/** The optional peer dependency, loaded only by those who use MCP. */
async function loadSdk() {
  try {
    const [client, stdio, http] = await Promise.all([
      import('@modelcontextprotocol/sdk/client/index.js'),
      import('@modelcontextprotocol/sdk/client/stdio.js'),
      import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
    ]);
    return { Client: client.Client, StdioClientTransport: stdio.StdioClientTransport, StreamableHTTPClientTransport: http.StreamableHTTPClientTransport };
  } catch (e) {
    throw new McpServerError('mcpEnvironment needs the peer dependency @modelcontextprotocol/sdk: npm install @modelcontextprotocol/sdk', { cause: e });
  }
}

/**
 * Starts (stdio) or opens (HTTP) one connection and completes the MCP handshake within `timeoutMs`.
 * @throws McpServerError when the process cannot start, exits, or the handshake fails or times out (the process is
 *   killed first).
 */
export async function connectMcp(server: McpStdioServer | McpHttpServer, timeoutMs: number, signal?: AbortSignal): Promise<McpConnection> {
  const sdk = await loadSdk();
  let stderr = '';
  let transport: Transport;
  /** Ends the server side of an HTTP session (DELETE), so a stateful server frees it. */
  let terminate = async (): Promise<void> => {};
  if (isStdio(server)) {
    const t = new sdk.StdioClientTransport({
      command: server.command,
      args: [...(server.args ?? [])],
      ...(server.env ? { env: { ...server.env } } : {}),
      ...(server.cwd !== undefined ? { cwd: server.cwd } : {}),
      stderr: 'pipe',
    });
    // Drained always (a full pipe would block the server); only the tail is kept.
    t.stderr?.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString('utf8')).slice(-STDERR_TAIL_BYTES);
    });
    transport = t;
  } else {
    const t = new sdk.StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: { ...(server.headers ?? {}) } } });
    terminate = () => (t.sessionId !== undefined ? t.terminateSession() : Promise.resolve());
    transport = t;
  }
  const client = new sdk.Client({ name: 'agentrl', version: '0.1.0' });
  let closed = false;
  client.onclose = () => {
    closed = true;
  };
  // Transport errors (a broken pipe, a failed POST) surface as the failing request's rejection.
  client.onerror = () => {};
  const conn: McpConnection = {
    client,
    get closed() {
      return closed;
    },
    stderrTail: () => stderr.trim(),
    async callTool(name, args, opts) {
      const result = await client.callTool({ name, arguments: { ...args } }, undefined, {
        timeout: opts.timeoutMs,
        ...(opts.signal ? { signal: opts.signal } : {}),
      });
      return result as McpToolResult;
    },
    async close() {
      const wasOpen = !closed;
      closed = true;
      if (wasOpen) await terminate().catch(() => {});
      await client.close().catch(() => {});
    },
  };
  try {
    await client.connect(transport, { timeout: timeoutMs, ...(signal ? { signal } : {}) });
  } catch (e) {
    await conn.close();
    const tail = stderr.trim();
    throw new McpServerError(
      `MCP server ${describeServer(server)} did not start: ${e instanceof Error ? e.message : String(e)}${tail ? ` (stderr: ${tail})` : ''}`,
      { cause: e },
    );
  }
  return conn;
}
