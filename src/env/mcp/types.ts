import type { Example } from '../../types/example.js';
import type { Message } from '../../types/message.js';
import type { ToolContext } from '../types.js';

/** An MCP server started as a child process speaking JSON-RPC over its stdin/stdout. */
export interface McpStdioServer {
  /** Executable, e.g. `process.execPath` (node) or `'uvx'`. */
  readonly command: string;
  /** Command-line arguments of the executable. */
  readonly args?: readonly string[];
  /**
   * Environment of the server process, added to the MCP SDK's minimal default (`HOME`, `PATH`, `SHELL`, `TERM`,
   * `USER`, `LOGNAME`): the trainer's own variables (API keys) are never passed on unless listed here.
   */
  readonly env?: Readonly<Record<string, string>>;
  /** Working directory of the server process. @default the trainer's */
  readonly cwd?: string;
}

/** An MCP server reached over Streamable HTTP (one MCP session per connection). */
export interface McpHttpServer {
  /** The server's MCP endpoint, e.g. `'http://127.0.0.1:3001/mcp'`. */
  readonly url: string;
  /** Extra request headers (e.g. `{ authorization: 'Bearer …' }`). */
  readonly headers?: Readonly<Record<string, string>>;
}

/** A tool result as the MCP server returned it (the `tools/call` result; `content` items are typed by `type`). */
export interface McpToolResult {
  /** Content items (`{ type: 'text', text }`, `{ type: 'image', … }`, …); text items become the observation. */
  readonly content?: readonly { readonly type: string; readonly [key: string]: unknown }[];
  /** Structured output, when the tool declares an output schema. */
  readonly structuredContent?: Readonly<Record<string, unknown>>;
  /** True when the tool reports that the call failed (the content explains why). */
  readonly isError?: boolean;
  /** Any other field of the result, kept as sent. */
  readonly [key: string]: unknown;
}

/** Calls a tool on one connection to the server (used by the `reset` hook, which may also call tools the model is not shown). */
export interface McpToolCaller {
  /** Calls tool `name` with `args`; resolves to its result (an `isError` result too), rejects when the server cannot be reached (`McpServerError`). */
  callTool(name: string, args: Readonly<Record<string, unknown>>): Promise<McpToolResult>;
}

/** Options of {@link mcpEnvironment}. */
export interface McpEnvironmentOptions<E extends Example = Example> {
  /** The server: a process to start (`{ command, args, env }`) or a Streamable HTTP endpoint (`{ url, headers }`). */
  readonly server: McpStdioServer | McpHttpServer;
  /** Stable id used in metric names and logs. @default 'mcp' */
  readonly name?: string;
  /** Messages that open one trajectory for `example` (system prompt + question). */
  initialMessages(example: E): Message[];
  /**
   * - `'per-trajectory'` (default): every trajectory gets its own connection — a fresh server process (stdio) or a
   *   fresh MCP session (HTTP) — opened at its first tool call and closed when it ends, so no state leaks between
   *   trajectories;
   * - `'shared'`: one connection serves every trajectory (a server that is stateless, or slow to start); trajectories
   *   of a group run concurrently against it, so any state it keeps is shared unless `reset` separates it.
   */
  readonly connection?: 'per-trajectory' | 'shared';
  /**
   * Called before a trajectory's first tool call, with its connection (and in `'shared'` mode once per trajectory,
   * concurrently with other trajectories' calls): seed or clear the server's state for this trajectory. A throw ends
   * the trajectory as an `error` (stage `env_step`).
   */
  reset?(server: McpToolCaller, ctx: ToolContext<E>): Promise<void>;
  /** Only these of the server's tools are offered to the model (in this order). @default every tool the server lists */
  readonly tools?: readonly string[];
  /** A tool call still running after this long is cancelled and answered `Error: … timed out`. @default 30000 */
  readonly callTimeoutMs?: number;
  /** Starting the server (spawn + MCP handshake) and listing its tools. @default 20000 */
  readonly connectTimeoutMs?: number;
}
