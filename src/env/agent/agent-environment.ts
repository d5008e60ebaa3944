import { setMaxListeners } from 'node:events';
import type { Example } from '../../types/example.js';
import type { DrivenEnvironment, DrivenTrajectory, DrivenTrajectoryContext } from '../driven.js';
import { ConfigError, type ConfigIssue } from '../../errors/config-error.js';
import { untilAborted } from '../../util/until-aborted.js';
import { RecordingEndpoint } from './recording-endpoint.js';
import { RolloutRecorder, type AgentOutcome } from './recorder.js';
import { subprocessAgent } from './subprocess-agent.js';
import type { AgentRunArgs } from './agent-run-args.js';

export type { AgentRunArgs } from './agent-run-args.js';
import { checkOptions, optionKeys } from '../../util/check-options.js';

const AGENT_ENV_OPTIONS = optionKeys<AgentEnvironmentOptions>({ run: true, command: true, env: true, cwd: true, name: true, model: true, timeoutMs: true });

/** Options of {@link agentEnvironment}. */
export interface AgentEnvironmentOptions<E extends Example = Example> {
  /**
   * The agent's code, unchanged except that its OpenAI client points at `baseURL` with `apiKey`. Returns the final
   * answer (a string), or any value (its `answer` field, when a string, is the answer; the whole value is
   * `trajectory.agentOutput` for the reward). A throw fails only this trajectory.
   */
  run?(args: AgentRunArgs<E>): Promise<unknown>;
  /**
   * Instead of `run`: an agent program to start per rollout, in any language (`['python3', 'agent.py']`, no shell),
   * pointed at the endpoint by `OPENAI_BASE_URL` / `OPENAI_API_KEY` / `ANTHROPIC_BASE_URL` / `ANTHROPIC_API_KEY`
   * (see {@link subprocessAgent}: the example on stdin, the answer from stdout, a minimal environment, the process
   * tree killed at the deadline).
   */
  readonly command?: readonly string[];
  /** With `command`: variables added to the program's minimal environment. */
  readonly env?: Readonly<Record<string, string>>;
  /** With `command`: its working directory. @default the trainer's */
  readonly cwd?: string;
  /** Stable id used in metric names and logs. @default 'agent' */
  readonly name?: string;
  /** The model name the agent is told to use. @default 'policy' */
  readonly model?: string;
  /**
   * Wall-clock limit of one rollout in ms: past it the rollout ends (`error`, stage `timeout`) whether or not the
   * agent honours its signal, and its key stops working. @default 600000
   */
  readonly timeoutMs?: number;
}

/** An {@link DrivenEnvironment} that runs existing agent code; `close()` stops its endpoint. */
export interface AgentEnvironment extends DrivenEnvironment {
  /** Stable id used in metric names and logs (the `name` option). */
  readonly name: string;
  /** Stops the endpoint and refuses every live key. Idempotent. */
  close(): Promise<void>;
  /** Rollouts whose endpoint key is live now (0 when none is running). */
  readonly activeRollouts: number;
}

function validate(o: AgentEnvironmentOptions<never>): void {
  const issues: ConfigIssue[] = [];
  const hasCommand = o?.command !== undefined;
  if (hasCommand === (o?.run !== undefined))
    issues.push({
      path: 'run',
      message: 'give exactly one of run (the agent function ({ baseURL, apiKey, model, example, signal }) => answer) and command (an agent program)',
    });
  else if (!hasCommand && typeof o.run !== 'function')
    issues.push({ path: 'run', message: 'expected the agent function ({ baseURL, apiKey, model, example, signal }) => answer' });
  if (hasCommand && !(Array.isArray(o.command) && o.command.length > 0 && o.command.every((a) => typeof a === 'string') && o.command[0] !== '')) {
    issues.push({ path: 'command', message: 'expected a non-empty array of strings: the program, then its arguments' });
  }
  if (o?.env !== undefined && (typeof o.env !== 'object' || o.env === null || Object.values(o.env).some((v) => typeof v !== 'string')))
    issues.push({ path: 'env', message: 'expected an object of string values' });
  if (o?.cwd !== undefined && (typeof o.cwd !== 'string' || o.cwd === '')) issues.push({ path: 'cwd', message: 'expected a non-empty string' });
  if (!hasCommand && (o?.env !== undefined || o?.cwd !== undefined))
    issues.push({ path: o?.env !== undefined ? 'env' : 'cwd', message: 'only applies with command' });
  if (o?.timeoutMs !== undefined && !(Number.isFinite(o.timeoutMs) && o.timeoutMs > 0))
    issues.push({ path: 'timeoutMs', message: `expected a positive number of ms, got ${o.timeoutMs}` });
  if (o?.model !== undefined && (typeof o.model !== 'string' || o.model === '')) issues.push({ path: 'model', message: 'expected a non-empty string' });
  if (issues.length) throw new ConfigError('agentEnvironment options', issues);
}

/**
 * Trains an agent as it is: for each rollout the trainer serves a private endpoint on loopback (a per-rollout key)
 * backed by the current policy, speaking OpenAI chat completions (`/v1/chat/completions`), OpenAI's Responses API
 * (`/v1/responses`, `previous_response_id` kept per rollout) and Anthropic's Messages API (`/v1/messages`), all with
 * tools, streaming and not. It then calls `run({ baseURL, anthropicBaseURL, apiKey, model, example, signal })` — the
 * agent's own loop with the official `openai` client, `@openai/agents` (its default Responses provider or chat
 * completions), `@anthropic-ai/sdk`, the AI SDK, … — or, with `command`, starts an agent program in any language with
 * `OPENAI_BASE_URL` / `ANTHROPIC_BASE_URL` and their keys in a minimal environment (the example on stdin, the answer from stdout; see `command`).
 * Every completion the agent receives is recorded with its exact prompt tokens, sampled tokens and logprobs, and the
 * trajectory is rebuilt from them:
 * - a request that continues an earlier one (its messages, the assistant reply it got, then tool results or more;
 *   on the Responses API also by `previous_response_id`) is rendered by extension of that call's exact tokens and
 *   merges into the same datum;
 * - any other request (a sub-agent, a summariser, a retry from an earlier point) opens a conversation of its own: a
 *   separate datum of the same trajectory (`Turn.newDatum`), sharing its advantage;
 * - when the chat template rewrites history the request is rendered whole, and the trainer's `onPrefixMismatch`
 *   applies to that trajectory.
 * The policy samples with the trainer's temperature / top-p / top-k (the agent's own sampling settings are ignored:
 * the learner's logprobs assume the trainer's). Budgets: `maxTurns` = model calls, `maxTurnTokens` = tokens per
 * call, `maxTrajectoryTokens` = prompt + completion of one call, `maxToolCalls` = tool calls handed to the agent.
 * Each completion is admitted once, on every wire, before anything is rendered: its `n` choices count as `n` model
 * calls, completions in flight on the same key count, and a request with more bytes of text than
 * `maxTrajectoryTokens` × the vocabulary's longest token is refused without tokenising it. A completion is recorded
 * only when its answer was written whole with a 2xx status (an error answer, or a client gone first, records
 * nothing and frees its admission). Tool budgets are enforced as the rollout engine enforces them, at the completion
 * that reaches the limit, so the agent never runs a tool the rollout does not allow: a completion whose tool calls
 * would pass `maxToolCalls` (every call of a parallel turn counts), or that calls tools on the last model call
 * `maxTurns` allows, is sent to the agent without its tool calls (the text before them as the reply; chat
 * `finish_reason: 'stop'`, Anthropic `stop_reason: 'end_turn'`), is recorded as the model sampled it, and ends the
 * trajectory with stop reason `max_tool_calls` / `max_turns` (not a valid ending: the reward scores it wrong). A
 * request after the trajectory ended, or past `maxTurns` / `maxTrajectoryTokens`, is refused (400, `code` = the
 * budget's stop reason). A throwing agent (a program exiting non-zero: its stderr tail in the message), or one that
 * returns without calling the model, fails only its trajectory (`error`, stage `agent`); one that ignores its signal
 * is left behind at `timeoutMs` (or the trainer's `trajectoryTimeoutMs`; a program's process group is killed) and
 * its key refused. The reward sees `finalText` (the answer), `turns` and `agentOutput`.
 * @throws ConfigError for bad options (neither or both of `run` and `command`, an empty `command`, `env` values that
 *   are not strings, `env`/`cwd` without `command`).
 */
export function agentEnvironment<E extends Example = Example>(opts: AgentEnvironmentOptions<E>): AgentEnvironment {
  checkOptions('agentEnvironment options', AGENT_ENV_OPTIONS, opts);
  validate(opts as AgentEnvironmentOptions<never>);
  const name = opts.name ?? 'agent';
  const model = opts.model ?? 'policy';
  const timeoutMs = opts.timeoutMs ?? 600_000;
  const agent = opts.command
    ? subprocessAgent({ command: opts.command, ...(opts.env ? { env: opts.env } : {}), ...(opts.cwd ? { cwd: opts.cwd } : {}) })
    : opts.run!;
  let endpoint: Promise<RecordingEndpoint> | undefined;
  let started: RecordingEndpoint | undefined;

  async function runTrajectory(ctx: DrivenTrajectoryContext): Promise<DrivenTrajectory> {
    const ep = (started = await (endpoint ??= RecordingEndpoint.start(ctx.renderer, model)));
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(new Error(`agent rollout ran past ${timeoutMs} ms`)), timeoutMs);
    const signal = AbortSignal.any([ctx.signal, deadline.signal]);
    setMaxListeners(0, signal); // agent code passes it to every request it makes (HTTP clients listen per request)
    const recorder = new RolloutRecorder(ctx, signal);
    const lease = ep.lease(recorder);
    let outcome: AgentOutcome;
    try {
      const run = Promise.resolve().then(() =>
        agent({
          baseURL: lease.baseURL,
          anthropicBaseURL: lease.rootURL,
          apiKey: lease.apiKey,
          model,
          example: ctx.example as E,
          signal,
          trajectoryId: ctx.trajectoryId,
          groupIndex: ctx.groupIndex,
        }),
      );
      outcome = { kind: 'returned', value: await untilAborted(run, signal) };
    } catch (e) {
      if (ctx.signal.aborted) throw e; // the engine reports its own abort / timeout
      outcome = deadline.signal.aborted ? { kind: 'timeout', timeoutMs } : { kind: 'threw', error: e };
    } finally {
      clearTimeout(timer);
      // responses already being written reach the agent (and are recorded) before the key stops working
      await recorder.close(signal.aborted ? 0 : 2000);
      lease.revoke();
    }
    return recorder.trajectory(outcome, name);
  }

  return {
    name,
    tools: [],
    initialMessages: (example) => [{ role: 'user', content: example.question }],
    step: async () => ({ done: true, reason: 'env_done' }),
    runTrajectory,
    get activeRollouts() {
      return started?.active ?? 0;
    },
    async close() {
      const ep = await endpoint?.catch(() => undefined);
      endpoint = undefined;
      started = undefined;
      await ep?.close();
    },
  };
}
