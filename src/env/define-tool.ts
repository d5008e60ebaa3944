import { ConfigError } from '../errors/config-error.js';
import { z } from '../util/zod.js';
import type { Example } from '../types/example.js';
import type { JsonSchema, Message, ToolCall, ToolDefinition } from '../types/message.js';
import type { Environment, StepOutcome, ToolContext } from './types.js';
import { truncateTail } from './truncate.js';
import { assertZod4Object, assertZodPeer } from '../util/zod-peer.js';
import { runToolCalls } from './parallel-calls.js';
import { toolDefinitionIssues, toolNameProblem } from './tool-definitions.js';
import { ToolTimeoutError } from '../errors/env-errors.js';
import { callWithDeadline } from './call-deadline.js';
import { toolOutputObservation } from './tool-output.js';
import { checkOptions, optionKeys, fnValue, anyValue } from '../util/check-options.js';

const DEFINE_TOOL_OPTIONS = optionKeys<DefineToolOptions<z.ZodObject, Example>>({
  description: true,
  inputSchema: true,
  timeoutMs: true,
  name: z.string(),
  execute: fnValue,
});
const TOOL_ENVIRONMENT_OPTIONS = optionKeys<ToolEnvironmentOptions<Example>>({
  name: true,
  parallelToolCalls: true,
  maxConcurrentCalls: true,
  callTimeoutMs: true,
  tools: z.array(anyValue),
  initialMessages: fnValue,
});

/**
 * A tool with typed arguments: `inputSchema` (a zod object) is both the JSON schema the chat template shows the
 * model and the validator of the arguments the model writes; `execute` receives them parsed and typed.
 */
export interface Tool<S extends z.ZodObject = z.ZodObject, E extends Example = Example> {
  /** The definition the chat template renders (`parameters` is `inputSchema` as JSON Schema). */
  readonly definition: ToolDefinition;
  /** The zod object that validates the model's arguments (and is rendered as `definition.function.parameters`). */
  readonly inputSchema: S;
  /**
   * Runs one call. Returns the observation text (or messages). A throw is the tool's fault and becomes an error
   * observation for the model (`Error: …`), never a crash of the rollout.
   */
  execute(args: z.infer<S>, ctx: ToolContext<E>): Promise<string | readonly Message[]> | string | readonly Message[];
  /** This tool's per-call deadline in ms (overrides `toolEnvironment`'s `callTimeoutMs`). */
  readonly timeoutMs?: number;
}

/** Options of {@link defineTool}. */
export interface DefineToolOptions<S extends z.ZodObject, E extends Example> {
  /** Name the model calls, e.g. `'convert_units'` (letters, digits, `_`, `-`). */
  readonly name: string;
  /** One or two sentences the model reads: what the tool does and what it returns. */
  readonly description: string;
  /** A zod 4 `z.object` describing the arguments; the model sees it as JSON Schema and its calls are validated with it. */
  readonly inputSchema: S;
  /** Runs one call with the validated, typed arguments (see {@link Tool.execute}). */
  readonly execute: Tool<S, E>['execute'];
  /**
   * Per-call deadline in ms: a call still running then has its `ctx.signal` aborted and ends its trajectory
   * (`ToolTimeoutError`, stage `timeout`). @default `toolEnvironment`'s `callTimeoutMs` (30 000)
   */
  readonly timeoutMs?: number;
}

/**
 * Defines a tool whose argument types are inferred from a zod schema:
 * ```ts
 * const add = defineTool({
 *   name: 'add', description: 'Add two integers.',
 *   inputSchema: z.object({ a: z.number().int(), b: z.number().int() }),
 *   execute: ({ a, b }) => String(a + b),                      // a, b: number
 * });
 * ```
 * @throws ConfigError when `name` is not a valid tool name or `description` is not a string.
 * @throws ZodVersionError when agentrl resolves a zod other than 4.x, or `inputSchema` is not a zod 4 `z.object` (a
 *   zod 3 schema, one from `zod/v3`).
 */
export function defineTool<S extends z.ZodObject, E extends Example = Example>(opts: DefineToolOptions<S, E>): Tool<S, E> {
  checkOptions('defineTool options', DEFINE_TOOL_OPTIONS, opts, { signature: 'defineTool({ name, description, inputSchema, execute })' });
  const nameProblem = toolNameProblem(opts.name);
  if (nameProblem) throw new ConfigError('defineTool options', [{ path: 'name', message: nameProblem }]);
  if (typeof opts.description !== 'string')
    throw new ConfigError('defineTool options', [{ path: 'description', message: `expected a string, got ${typeof opts.description}` }]);
  assertZodPeer();
  assertZod4Object(opts.inputSchema, `defineTool('${opts.name}').inputSchema`);
  if (opts.timeoutMs !== undefined && !(opts.timeoutMs > 0))
    throw new ConfigError('defineTool options', [{ path: 'timeoutMs', message: `expected a positive number of ms, got ${opts.timeoutMs}` }]);
  const { $schema: _ignored, ...parameters } = z.toJSONSchema(opts.inputSchema, { io: 'input' }) as Record<string, unknown>;
  return {
    definition: { type: 'function', function: { name: opts.name, description: opts.description, parameters: parameters as JsonSchema } },
    inputSchema: opts.inputSchema,
    execute: opts.execute,
    ...(opts.timeoutMs !== undefined ? { timeoutMs: opts.timeoutMs } : {}),
  };
}

/** Options of {@link toolEnvironment}. */
export interface ToolEnvironmentOptions<E extends Example> {
  /** Stable id used in logs and metrics. */
  readonly name: string;
  /** The tools offered to the model (names must be unique). */
  // biome-ignore lint/suspicious/noExplicitAny: a tool's argument type is checked where it is defined; here only its shape matters
  readonly tools: readonly Tool<any, E>[];
  /** Messages that open one trajectory (system prompt + question). */
  initialMessages(example: E): Message[];
  /**
   * Several calls in one assistant turn are valid: they run concurrently (at most `maxConcurrentCalls`) and each is
   * answered with its own tool message, in call order. @default false (a second call is `multiple_tool_calls`)
   */
  readonly parallelToolCalls?: boolean;
  /** Calls of one turn running at once with `parallelToolCalls`. @default 4 */
  readonly maxConcurrentCalls?: number;
  /**
   * Per-call deadline in ms (a tool's own `timeoutMs` overrides it): a call still running then — an `execute` that
   * never settles, or ignores its abort signal — has its `ctx.signal` aborted, and its trajectory ends as an `error`
   * with stage `timeout` (`ToolTimeoutError`); the run goes on. `Infinity` for none. @default 30000
   */
  readonly callTimeoutMs?: number;
}

/** Default per-call deadline of a {@link toolEnvironment} tool, in ms. */
export const DEFAULT_TOOL_CALL_TIMEOUT_MS = 30_000;

/**
 * An {@link Environment} over tools made with {@link defineTool}: each tool call is validated against its schema
 * (arguments that do not fit come back to the model as an observation naming the problem), executed, and its output
 * cut to the tool-response budget. An answer ends the episode. With `parallelToolCalls`, every call of a turn runs
 * (concurrently, bounded) and is answered in call order.
 */
export function toolEnvironment<E extends Example = Example>(opts: ToolEnvironmentOptions<E>): Environment<E> {
  checkOptions('toolEnvironment options', TOOL_ENVIRONMENT_OPTIONS, opts, { signature: 'toolEnvironment({ name, tools, initialMessages })' });
  const issues = toolDefinitionIssues(
    opts.tools.map((t) => t.definition),
    'tools',
  );
  const callTimeoutMs = opts.callTimeoutMs ?? DEFAULT_TOOL_CALL_TIMEOUT_MS;
  if (!(callTimeoutMs > 0)) issues.push({ path: 'callTimeoutMs', message: `expected a positive number of ms (or Infinity), got ${callTimeoutMs}` });
  if (issues.length > 0) throw new ConfigError(`toolEnvironment '${opts.name}' options`, issues);
  const byName = new Map(opts.tools.map((t) => [t.definition.function.name, t]));
  return {
    name: opts.name,
    tools: opts.tools.map((t) => t.definition),
    initialMessages: (example) => opts.initialMessages(example),
    ...(opts.parallelToolCalls === true ? { parallelToolCalls: true } : {}),
    // Each call has its own deadline (callTimeoutMs), so a step is bounded by the calls of its turn.
    stepTimeoutMs: Infinity,
    async step(action, ctx): Promise<StepOutcome> {
      if (action.kind !== 'tool') return { done: true, reason: action.kind === 'answer' ? 'answer' : 'invalid' };
      if (opts.parallelToolCalls !== true) return runCall(action.call, ctx);
      const results = await runToolCalls(action, (call) => runCall(call, ctx), opts.maxConcurrentCalls);
      return { done: false, observation: results.flatMap((r) => r.observation) };
    },
  };

  /** Validates and executes one call; every fault is an observation naming it. */
  async function runCall(call: ToolCall, ctx: ToolContext<E>): Promise<{ done: false; observation: readonly Message[] }> {
    const name = call.function.name;
    const tool = byName.get(name);
    const reply = (content: string): { done: false; observation: readonly Message[] } => ({
      done: false,
      observation: [{ role: 'tool', name, content: truncateTail(content, ctx.maxToolResponseTokens, (s) => ctx.countTokens(s)) }],
    });
    if (!tool) return reply(`Error: unknown tool '${name}'. Available: ${[...byName.keys()].join(', ')}.`);
    const parsed = tool.inputSchema.safeParse(call.function.arguments);
    if (!parsed.success) {
      const problems = parsed.error.issues
        .map((i: { path: readonly PropertyKey[]; message: string }) => `${i.path.map(String).join('.') || '(arguments)'}: ${i.message}`)
        .join('; ');
      return reply(`Error: bad arguments for ${name}: ${problems}`);
    }
    let out: unknown;
    try {
      out = await callWithDeadline(name, tool.timeoutMs ?? callTimeoutMs, ctx, (callCtx) => tool.execute(parsed.data, callCtx));
    } catch (e) {
      if (e instanceof ToolTimeoutError) throw e; // ends the trajectory (stage timeout)
      return reply(`Error: ${e instanceof Error ? e.message : String(e)}`);
    }
    const observation = toolOutputObservation(out, name);
    return typeof observation === 'string' ? reply(observation) : { done: false, observation };
  }
}
