import type { Environment, StepOutcome, ToolContext } from './types.js';
import type { ExecResult, Sandbox, SandboxSession } from '../types/exec-result.js';
import { ConfigError } from '../errors/index.js';
import type { Example } from '../types/example.js';
import type { Message, ToolCall, ToolDefinition } from '../types/message.js';
import type { InvalidReason, ParsedAction } from '../types/action.js';
import { truncateTail, utf8Bytes } from './truncate.js';
import { DEFAULT_MAX_CONCURRENT_CALLS, runToolCalls } from './parallel-calls.js';
import { checkOptions, optionKeys, objectValue } from '../util/check-options.js';

const CODE_INTERPRETER_OPTIONS = optionKeys<CodeInterpreterOptions>({
  timeoutMs: true,
  systemPrompt: true,
  formatQuestion: true,
  session: true,
  parallelToolCalls: true,
  maxConcurrentCalls: true,
  sandbox: objectValue,
});

/**
 * The `code_interpreter` tool, as the ReTool recipe defines it (KMnO4-zx/agentic-rl-lab `05-retool/protocol.py`): one
 * string argument, fresh state per run.
 */
export const CODE_INTERPRETER_TOOL: ToolDefinition = {
  type: 'function',
  function: {
    name: 'code_interpreter',
    description: 'Run Python code and return what it prints. Each execution starts fresh.',
    parameters: { type: 'object', properties: { code: { type: 'string' } }, required: ['code'] },
  },
};

/** The `code_interpreter` tool of session mode (`session: 'trajectory'`): state persists between runs. */
export const CODE_INTERPRETER_SESSION_TOOL: ToolDefinition = {
  type: 'function',
  function: {
    name: 'code_interpreter',
    description: 'Run Python code and return what it prints. Like a notebook: variables, imports and files from earlier runs in this conversation are kept.',
    parameters: { type: 'object', properties: { code: { type: 'string' } }, required: ['code'] },
  },
};

/**
 * System prompt for tool-integrated math reasoning: the rules of the ReTool recipe's system prompt
 * (KMnO4-zx/agentic-rl-lab `05-retool/protocol.py`), in our words.
 */
export const CODE_INTERPRETER_SYSTEM_PROMPT = [
  'Solve the math problem step by step. You may use the code_interpreter tool (Python) whenever exact',
  'arithmetic, algebra or a small search makes the answer faster or more reliable.',
  'Rules: make at most one tool call per turn, then wait for its result. Only what the code prints is',
  'returned, so print every value you need. Every run starts from scratch: no variables or files survive',
  'between runs. Keep code short: a few seconds of CPU, little memory, no file or network access, small',
  'search spaces. If a run fails, read the error and retry with corrected code if useful.',
  'Finish with exactly one line \\boxed{<final answer>}, and never call the tool in the same turn as the final answer.',
].join('\n');

/** {@link CODE_INTERPRETER_SYSTEM_PROMPT} for session mode: state persists between runs (a timeout or crash resets it). */
export const CODE_INTERPRETER_SESSION_SYSTEM_PROMPT = CODE_INTERPRETER_SYSTEM_PROMPT.replace(
  'Every run starts from scratch: no variables or files survive\nbetween runs.',
  'Runs share one Python session, like a notebook: variables, functions,\nimports and files from earlier runs are still there (a run that times out or crashes resets the session, and says so).',
);

/** Options of {@link codeInterpreter}. */
export interface CodeInterpreterOptions {
  /** Where the model's code runs. Required: agentrl never runs model code outside a sandbox. */
  readonly sandbox: Sandbox;
  /** Wall-clock limit per call in ms (the per-call time budget). @default 10_000 */
  readonly timeoutMs?: number;
  /** System prompt; `null` for none. @default CODE_INTERPRETER_SYSTEM_PROMPT */
  readonly systemPrompt?: string | null;
  /** Builds the user message from an example. @default the question as is */
  readonly formatQuestion?: (example: Example) => string;
  /**
   * `call`: every tool call runs in a fresh interpreter (the ReTool recipe's rule). `trajectory`: one
   * interpreter session per trajectory (`sandbox.openSession`), opened by its first tool call and
   * closed when the trajectory ends, is aborted or errors; the default system prompt and the tool's
   * description then say that state persists.
   * @default 'call'
   */
  readonly session?: 'call' | 'trajectory';
  /**
   * Several `code_interpreter` calls in one turn are valid: they run concurrently (at most `maxConcurrentCalls`; in
   * session mode one after another, in the trajectory's session) and each gets its own tool message, in call order.
   * Off, a second call is `multiple_tool_calls` — the ReTool recipe's rule, which the default system prompt states.
   * @default false
   */
  readonly parallelToolCalls?: boolean;
  /** Calls of one turn running at once with `parallelToolCalls`. @default 4 */
  readonly maxConcurrentCalls?: number;
}

const SESSION_KEY = 'code-interpreter/session';

/** Text added to the observation of a call that ran in a fresh session because the previous one ended. */
export const SESSION_RESET_NOTE = 'Note: the previous session ended (timeout or crash); this run started a fresh one, so earlier variables are gone.\n';

/**
 * Formats a sandbox result as the observation text the model sees (the ReTool recipe's `format_tool_content`,
 * KMnO4-zx/agentic-rl-lab `05-retool/sandbox.py`):
 * timeout text on timeout; stdout on success; stderr on failure; the exit code when both are empty.
 * Sandbox faults are observations too, never exceptions.
 */
export function formatExecObservation(r: ExecResult, timeoutMs: number): string {
  switch (r.status) {
    case 'timeout':
      return `Error: execution timed out after ${Math.round(timeoutMs / 1000)} seconds.`;
    case 'ok':
      return r.stdout;
    case 'memory':
      return (r.stderr ? r.stderr.trimEnd() + '\n' : '') + 'Error: memory limit exceeded.';
    case 'output_limit':
      return (r.stdout || r.stderr) + '\nError: output limit exceeded.';
    case 'sandbox_error':
      return `Error: the sandbox failed to run the code (${r.stderr.trim() || 'unknown fault'}).`;
    case 'error':
      if (r.stderr.trim()) return r.stderr;
      if (r.stdout.trim()) return r.stdout;
      return `Error: process exited with code ${r.exitCode ?? r.signal ?? 'unknown'}.`;
  }
}

/** `codeInterpreter`'s deadline for one step (queue wait for a sandbox included): 10 minutes. */
const CODE_STEP_TIMEOUT_MS = 600_000;

/**
 * The ReTool environment: a Python `code_interpreter` tool backed by a {@link Sandbox}.
 * Each tool call runs the code fresh; the observation (see {@link formatExecObservation}) is
 * tail-truncated to the tool-response token budget (`ctx.maxToolResponseTokens`), cut by bytes first so a huge
 * output is never tokenised whole.
 * Budgets on tool calls, turns and tokens are enforced by the rollout engine. A step (the wait for a sandbox worker
 * included) has a 10-minute deadline (`stepTimeoutMs`; the run's `rollout.stepTimeoutMs` overrides it).
 *
 * @example
 * ```ts
 * const env = codeInterpreter({ sandbox: localSandbox({ workers: 4 }) });
 * ```
 */
export function codeInterpreter(opts: CodeInterpreterOptions): Environment {
  checkOptions('codeInterpreter options', CODE_INTERPRETER_OPTIONS, opts, { signature: 'codeInterpreter({ sandbox, … })' });
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const perTrajectory = opts.session === 'trajectory';
  if (perTrajectory && (typeof opts.sandbox.openSession !== 'function' || opts.sandbox.supportsSessions === false)) {
    throw new ConfigError('codeInterpreter options', [{ path: 'session', message: `sandbox '${opts.sandbox.name}' offers no sessions` }]);
  }
  const systemPrompt =
    opts.systemPrompt === undefined ? (perTrajectory ? CODE_INTERPRETER_SESSION_SYSTEM_PROMPT : CODE_INTERPRETER_SYSTEM_PROMPT) : opts.systemPrompt;
  const formatQuestion = opts.formatQuestion ?? ((e: Example) => e.question);
  /** The trajectory's session, opened by its first call (kept in `ctx.state`). */
  const sessionOf = (ctx: ToolContext): Promise<SandboxSession> => {
    let s = ctx.state.get(SESSION_KEY) as Promise<SandboxSession> | undefined;
    if (!s) {
      s = opts.sandbox.openSession!({ timeoutMs });
      s.catch(() => {});
      ctx.state.set(SESSION_KEY, s);
    }
    return s;
  };
  const run = async (code: string, ctx: ToolContext): Promise<ExecResult> =>
    perTrajectory ? (await sessionOf(ctx)).run({ code, timeoutMs }, ctx.signal) : opts.sandbox.run({ code, timeoutMs }, ctx.signal);
  const env: Environment = {
    name: 'code-interpreter',
    tools: [perTrajectory ? CODE_INTERPRETER_SESSION_TOOL : CODE_INTERPRETER_TOOL],
    initialMessages(example: Example): Message[] {
      const msgs: Message[] = [];
      if (systemPrompt) msgs.push({ role: 'system', content: systemPrompt });
      msgs.push({ role: 'user', content: formatQuestion(example) });
      return msgs;
    },
    // The seed's rule: a call must carry non-blank code (a blank one is a malformed turn, `empty_code`).
    checkToolCall(call: ToolCall): InvalidReason | null {
      const code = call.function.arguments['code'];
      if (typeof code !== 'string') return 'bad_arguments';
      return code.trim() === '' ? 'empty_code' : null;
    },
    ...(opts.parallelToolCalls === true ? { parallelToolCalls: true } : {}),
    // A step waits for a sandbox worker (a queue under load), then runs within timeoutMs: a deadline well past both.
    stepTimeoutMs: CODE_STEP_TIMEOUT_MS,
    async step(action: ParsedAction, ctx: ToolContext): Promise<StepOutcome> {
      if (action.kind !== 'tool') return { done: true, reason: action.kind === 'answer' ? 'answer' : 'invalid' };
      if (opts.parallelToolCalls !== true || (action.calls?.length ?? 1) <= 1) return runCall(action.call, ctx);
      const results = await runToolCalls(action, (call) => runCall(call, ctx), perTrajectory ? 1 : (opts.maxConcurrentCalls ?? DEFAULT_MAX_CONCURRENT_CALLS));
      // One tool message per call, in call order; the turn's sandbox result is the first failure, else the last run.
      const exec = results.find((r) => r.exec.status !== 'ok')?.exec ?? results[results.length - 1]!.exec;
      return {
        done: false,
        observation: results.flatMap((r) => r.observation),
        exec,
        rawBytes: results.reduce((n, r) => n + r.rawBytes, 0),
      };
    },
    async endTrajectory(ctx: ToolContext): Promise<void> {
      const s = ctx.state.get(SESSION_KEY) as Promise<SandboxSession> | undefined;
      if (!s) return;
      ctx.state.delete(SESSION_KEY);
      await (await s.catch(() => undefined))?.close().catch(() => {});
    },
    close: () => opts.sandbox.close(),
  };
  return env;

  /** Runs one call's code and formats its observation (sandbox faults are observations). */
  async function runCall(call: ToolCall, ctx: ToolContext): Promise<{ done: false; observation: Message[]; exec: ExecResult; rawBytes: number }> {
    const code = String(call.function.arguments['code'] ?? '');
    let exec: ExecResult;
    try {
      exec = await run(code, ctx);
    } catch (err) {
      if (ctx.signal.aborted) throw err;
      exec = {
        status: 'sandbox_error',
        exitCode: null,
        stdout: '',
        stderr: err instanceof Error ? err.message : String(err),
        truncated: false,
        wallMs: 0,
      };
    }
    const full = (exec.sessionReset ? SESSION_RESET_NOTE : '') + formatExecObservation(exec, timeoutMs);
    const text = truncateTail(full, ctx.maxToolResponseTokens, ctx.countTokens);
    return { done: false, observation: [{ role: 'tool', name: 'code_interpreter', content: text }], exec, rawBytes: utf8Bytes(full) };
  }
}
