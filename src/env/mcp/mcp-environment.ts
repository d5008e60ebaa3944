import type { Example } from '../../types/example.js';
import type { JsonSchema, ToolDefinition } from '../../types/message.js';
import { ConfigError, type ConfigIssue } from '../../errors/config-error.js';
import { McpServerError } from '../../errors/env-errors.js';
import type { Environment, StepOutcome, ToolContext } from '../types.js';
import { truncateTail, utf8Bytes } from '../truncate.js';
import { connectMcp, describeServer, type McpConnection } from './connect.js';
import { toolResultText } from './tool-result.js';
import { toolDefinitionIssues } from '../tool-definitions.js';
import type { McpEnvironmentOptions, McpToolCaller } from './types.js';
import { checkOptions, optionKeys } from '../../util/check-options.js';

const MCP_ENV_OPTIONS = optionKeys<McpEnvironmentOptions>({
  server: true,
  name: true,
  initialMessages: true,
  connection: true,
  reset: true,
  tools: true,
  callTimeoutMs: true,
  connectTimeoutMs: true,
});

/** An {@link Environment} over an MCP server's tools; `close()` ends every connection and process it opened. */
export interface McpEnvironment<E extends Example = Example> extends Environment<E> {
  /** Ends every connection and stops every server process this environment started. Idempotent. */
  close(): Promise<void>;
}

/** Key of the trajectory's connection (a promise) in `ctx.state`. */
const CONNECTION = 'mcp.connection';
/** JSON-RPC error code of the SDK's own request timeout. */
const REQUEST_TIMEOUT = -32001;

function validate(o: McpEnvironmentOptions<never>): void {
  const issues: ConfigIssue[] = [];
  const s = o.server as unknown as Record<string, unknown> | undefined;
  if (typeof s !== 'object' || s === null) issues.push({ path: 'server', message: 'expected { command, args?, env? } or { url, headers? }' });
  else if ('command' in s) {
    if (typeof s.command !== 'string' || s.command === '') issues.push({ path: 'server.command', message: 'expected a non-empty string' });
    if (s.args !== undefined && (!Array.isArray(s.args) || s.args.some((a) => typeof a !== 'string')))
      issues.push({ path: 'server.args', message: 'expected an array of strings' });
  } else if ('url' in s) {
    if (typeof s.url !== 'string' || !URL.canParse(s.url) || !/^https?:$/.test(new URL(s.url).protocol))
      issues.push({ path: 'server.url', message: `expected an http(s) URL, got ${JSON.stringify(s.url)}` });
  } else issues.push({ path: 'server', message: 'expected a `command` (stdio) or a `url` (Streamable HTTP)' });
  if (typeof o.initialMessages !== 'function') issues.push({ path: 'initialMessages', message: 'expected a function' });
  if (o.connection !== undefined && o.connection !== 'per-trajectory' && o.connection !== 'shared')
    issues.push({ path: 'connection', message: `expected 'per-trajectory' or 'shared', got ${JSON.stringify(o.connection)}` });
  for (const k of ['callTimeoutMs', 'connectTimeoutMs'] as const) {
    const v = o[k];
    if (v !== undefined && (!Number.isFinite(v) || v <= 0)) issues.push({ path: k, message: `expected a positive number of ms, got ${v}` });
  }
  if (issues.length) throw new ConfigError('mcpEnvironment options', issues);
}

/** The model-facing definitions of the server's tools, in `only`'s order when given. @throws ConfigError for a name the server lacks. */
function pickTools(listed: readonly { name: string; description?: string; inputSchema: unknown }[], only: readonly string[] | undefined): ToolDefinition[] {
  const defs = listed.map(
    (t): ToolDefinition => ({
      type: 'function',
      function: { name: t.name, description: t.description ?? '', parameters: (t.inputSchema ?? { type: 'object', properties: {} }) as JsonSchema },
    }),
  );
  if (!only) return defs;
  const byName = new Map(defs.map((d) => [d.function.name, d]));
  const missing = only.filter((n) => !byName.has(n));
  if (missing.length)
    throw new ConfigError('mcpEnvironment options', [
      { path: 'tools', message: `the server has no tool ${missing.map((n) => `'${n}'`).join(', ')} (it has ${[...byName.keys()].join(', ')})` },
    ]);
  // Every listed definition of a picked name (a server that lists one name twice is refused below).
  return only.flatMap((n) => defs.filter((d) => d.function.name === n));
}

/** What a failed call tells the model; `undefined` when the failure is the server's death (the trajectory fails). */
function callFailureText(e: unknown, name: string, timeoutMs: number, conn: McpConnection): string | undefined {
  if (conn.closed) return undefined;
  const code = (e as { code?: unknown }).code;
  if (code === REQUEST_TIMEOUT) return `Error: tool ${name} timed out after ${timeoutMs} ms`;
  const message = e instanceof Error ? e.message : String(e);
  return `Error: ${message.replace(/^MCP error -?\d+: /, '')}`;
}

/**
 * An environment whose tools are an MCP server's tools, through the official TypeScript SDK
 * (`@modelcontextprotocol/sdk`, an optional peer dependency): connects once to list them (their `inputSchema`
 * becomes each tool definition's `parameters`), then runs each tool call of the model on the server:
 * - stdio servers (`{ command, args, env, cwd }`) are started per trajectory at its first call (or once, with
 *   `connection: 'shared'`); HTTP servers (`{ url, headers }`) get an MCP session per trajectory (or one shared);
 * - a result's text, structured content (as JSON when there is no text) and `isError` (prefix `Error: `) become one
 *   `tool` observation, cut to the tool-response budget (tail kept);
 * - a call the server refuses (unknown tool, bad arguments: a JSON-RPC error) or one past `callTimeoutMs` (cancelled)
 *   is an `Error: …` observation; a server that dies (process exit, closed session) ends that trajectory as an `error`
 *   ({@link McpServerError}) and never the run; the next trajectory gets a new connection;
 * - each trajectory's connection is closed (its process killed) when it ends, is aborted or times out; `close()`
 *   closes whatever is still open.
 * @example
 * const env = await mcpEnvironment({
 *   server: { command: process.execPath, args: ['node_modules/@modelcontextprotocol/server-memory/dist/index.js'], env: { MEMORY_FILE_PATH: file } },
 *   initialMessages: (ex) => [{ role: 'user', content: ex.question }],
 * });
 * @throws ConfigError for bad options or a `tools` name the server lacks; McpServerError when the server cannot be
 *   started or listed within `connectTimeoutMs`, or lists (among those offered) a tool whose name is not a tool name
 *   (`defineTool`'s rule), two tools of one name, or a definition past 64 KiB of JSON.
 */
export async function mcpEnvironment<E extends Example = Example>(opts: McpEnvironmentOptions<E>): Promise<McpEnvironment<E>> {
  checkOptions('mcpEnvironment options', MCP_ENV_OPTIONS, opts);
  validate(opts as McpEnvironmentOptions<never>);
  const name = opts.name ?? 'mcp';
  const callTimeoutMs = opts.callTimeoutMs ?? 30_000;
  const connectTimeoutMs = opts.connectTimeoutMs ?? 20_000;
  const mode = opts.connection ?? 'per-trajectory';
  const live = new Set<McpConnection>();
  const open = async (signal?: AbortSignal): Promise<McpConnection> => {
    const c = await connectMcp(opts.server, connectTimeoutMs, signal);
    live.add(c);
    return c;
  };
  const release = async (c: McpConnection): Promise<void> => {
    live.delete(c);
    await c.close();
  };

  const first = await open();
  let tools: ToolDefinition[];
  try {
    const listed = await first.client.listTools(undefined, { timeout: connectTimeoutMs }).catch((e: unknown) => {
      throw new McpServerError(`MCP server ${describeServer(opts.server)} did not list its tools: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
    });
    tools = pickTools(listed.tools, opts.tools);
    // The server is not trusted to name or describe its tools: the rules of defineTool hold (texts are defused where
    // they enter the chat template).
    const issues = toolDefinitionIssues(tools, 'tools');
    if (issues.length > 0) {
      throw new McpServerError(
        `MCP server ${describeServer(opts.server)} lists tools agentrl will not offer: ${issues
          .slice(0, 5)
          .map((i) => `${i.path}: ${i.message}`)
          .join('; ')}${issues.length > 5 ? ` (+${issues.length - 5} more)` : ''}`,
      );
    }
  } catch (e) {
    await release(first);
    throw e;
  }
  const offered = new Set(tools.map((t) => t.function.name));
  let shared: Promise<McpConnection> | undefined = mode === 'shared' ? Promise.resolve(first) : undefined;
  if (mode !== 'shared') await release(first);

  const caller = (c: McpConnection, ctx: ToolContext<E>): McpToolCaller => ({
    callTool: (tool, args) => c.callTool(tool, args, { signal: ctx.signal, timeoutMs: callTimeoutMs }),
  });
  /** The trajectory's connection, opened (and reset) at its first call. */
  const connectionFor = async (ctx: ToolContext<E>): Promise<McpConnection> => {
    let p = ctx.state.get(CONNECTION) as Promise<McpConnection> | undefined;
    if (!p) {
      p = (async () => {
        let c: McpConnection;
        if (mode === 'shared') {
          c = await (shared ??= open());
          if (c.closed) c = await (shared = open());
        } else c = await open(ctx.signal);
        await opts.reset?.(caller(c, ctx), ctx);
        return c;
      })();
      ctx.state.set(CONNECTION, p);
    }
    return p;
  };

  return {
    name,
    tools,
    // A step may start a server (connectTimeoutMs), run `reset` and one call (callTimeoutMs each): past all of that,
    // with a margin, the trajectory ends (stage timeout) even if the SDK's own timeouts did not fire.
    stepTimeoutMs: connectTimeoutMs + 3 * callTimeoutMs + 10_000,
    initialMessages: (example) => opts.initialMessages(example),
    async step(action, ctx): Promise<StepOutcome> {
      if (action.kind !== 'tool') return { done: true, reason: action.kind === 'answer' ? 'answer' : 'invalid' };
      const tool = action.call.function.name;
      const reply = (text: string): StepOutcome => ({
        done: false,
        observation: [{ role: 'tool', name: tool, content: truncateTail(text, ctx.maxToolResponseTokens, (s) => ctx.countTokens(s)) }],
        rawBytes: utf8Bytes(text),
      });
      if (!offered.has(tool)) return reply(`Error: unknown tool '${tool}'. Available: ${[...offered].join(', ')}.`);
      const conn = await connectionFor(ctx);
      if (conn.closed)
        throw new McpServerError(`MCP server ${describeServer(opts.server)} is gone${conn.stderrTail() ? ` (stderr: ${conn.stderrTail()})` : ''}`);
      try {
        return reply(toolResultText(await conn.callTool(tool, action.call.function.arguments, { signal: ctx.signal, timeoutMs: callTimeoutMs })));
      } catch (e) {
        if (ctx.signal.aborted) throw e;
        const text = callFailureText(e, tool, callTimeoutMs, conn);
        if (text !== undefined) return reply(text);
        const tail = conn.stderrTail();
        throw new McpServerError(
          `MCP server ${describeServer(opts.server)} exited during ${tool}: ${e instanceof Error ? e.message : String(e)}${tail ? ` (stderr: ${tail})` : ''}`,
          { cause: e },
        );
      }
    },
    async endTrajectory(ctx) {
      if (mode === 'shared') return;
      const p = ctx.state.get(CONNECTION) as Promise<McpConnection> | undefined;
      ctx.state.delete(CONNECTION);
      const c = await p?.catch(() => undefined);
      if (c) await release(c);
    },
    async close() {
      shared = undefined;
      await Promise.all([...live].map(release));
    },
  };
}
