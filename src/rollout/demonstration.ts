import type { Renderer } from '../chat/types.js';
import type { Environment, ToolContext } from '../env/types.js';
import type { Datum } from '../types/datum.js';
import type { Example } from '../types/example.js';
import type { AssistantMessage, Message } from '../types/message.js';
import { supervisedDatum } from '../loss/index.js';
import { DemonstrationError } from '../errors/data-errors.js';
import { parseWithEnv } from './parse-with-env.js';
import { assistantCompletion } from '../chat/assistant-completion.js';
import { argumentIssue } from './argument-issue.js';
import { checkDemonstration, type CheckedTurn, type DemonstrationTurn } from './demonstration-turn.js';
import { checkOptions, checkArgumentCount, optionKeys, nonNegativeInt } from '../util/check-options.js';

const DEMONSTRATION_OPTIONS = optionKeys<Parameters<typeof demonstrationDatum>[3]>({ maxTokens: true, maxToolResponseTokens: nonNegativeInt });

/** One demonstrated episode as {@link demonstrationDatum} reads it: the example and its assistant turns, in order. */
export interface DemonstrationInput<E extends Example = Example> {
  /** The dataset example the episode answers. */
  readonly example: E;
  /** The assistant turns: raw text (a string or `{ text }`), or data (`{ say }`, `{ call }`, `{ calls }`, `{ answer }`). */
  readonly turns: readonly (string | DemonstrationTurn)[];
}

/**
 * Renders a demonstration exactly as a rollout would produce it — `renderPrompt`, then per tool turn
 * `renderer.nextPrompt` with the observation (given, or from `env.step` for a parsed tool call) — and returns a
 * `cross_entropy` datum with mask 1 on the assistant tokens (and their stop token) only. Cold-start SFT on such
 * datums trains on the same token sequences RL later samples. The demonstration ends at the first turn that is not
 * followed by an observation (an answer, or a deliberately malformed call): it must be the last turn.
 *
 * A turn written as data (`{ call: { name: 'add', arguments: { a: 1, b: 2 } } }`, `{ answer: '3' }`) is rendered by
 * the renderer's chat template in the model family's own call syntax, and checked to parse back to the same call; a
 * raw-text turn is encoded as is.
 * @throws DemonstrationError (naming the example, the turn and the field) when the demonstration or a turn is
 *   wrongly shaped, a turn calls a tool `env.tools` does not list or with arguments that do not fit its schema (the
 *   call would be `invalid` in a rollout, so the demonstration would teach a dead end), the family's template cannot
 *   render a data turn so that it parses back, or turns follow the turn that ends the episode.
 * @param demonstration - the example and its demonstrated assistant turns, in order.
 * @param opts.maxToolResponseTokens - observation budget handed to `env.step` (tokens).
 * @param opts.maxTokens - cut the datum to this many positions (tokens); default unlimited.
 */
export async function demonstrationDatum(
  renderer: Renderer,
  env: Environment,
  demonstration: DemonstrationInput,
  opts: { maxToolResponseTokens: number; maxTokens?: number },
): Promise<Datum> {
  checkArgumentCount('demonstrationDatum', arguments.length, 4, 'demonstrationDatum(renderer, env, { example, turns }, { maxToolResponseTokens, maxTokens? })');
  checkOptions('demonstrationDatum options', DEMONSTRATION_OPTIONS, opts, {
    signature: 'demonstrationDatum(renderer, env, { example, turns }, { maxToolResponseTokens })',
  });
  const { tokens, mask } = await renderDemonstration(renderer, env, demonstration, opts);
  return supervisedDatum({ tokens, mask, ...(opts.maxTokens ? { maxTokens: opts.maxTokens } : {}) });
}

/** A rendered demonstration: its tokens, mask 1 on the assistant tokens, and where each rendered turn starts. */
export interface RenderedDemonstration {
  readonly tokens: readonly number[];
  readonly mask: readonly number[];
  /** Per rendered turn: the index in `tokens` of its first assistant token (its prompt is `tokens.slice(0, start)`). */
  readonly turnStarts: readonly number[];
  /** Per rendered turn: its text as the model writes it (stop token excluded). */
  readonly texts: readonly string[];
  /** Per rendered turn: its length in tokens, stop token included. */
  readonly turnTokens: readonly number[];
}

/**
 * The token sequence behind {@link demonstrationDatum} (same rules and errors), with the start and text of each assistant turn, so a caller can sample from
 * the exact prompt a demonstrated turn was written at.
 * @internal
 */
export async function renderDemonstration(
  renderer: Renderer,
  env: Environment,
  demonstration: DemonstrationInput,
  opts: { maxToolResponseTokens: number; index?: number },
): Promise<RenderedDemonstration> {
  const { example, turns } = checkDemonstration(demonstration, opts.index ?? 0);
  const turnStarts: number[] = [];
  const texts: string[] = [];
  const turnTokens: number[] = [];
  let messages: Message[] = env.initialMessages(example);
  let prompt = renderer.renderPrompt(messages, { tools: env.tools, addGenerationPrompt: true });
  const tokens: number[] = [...prompt];
  const mask: number[] = prompt.map(() => 0);
  let toolCalls = 0;
  // One context for the whole demonstration: per-trajectory state (an interpreter session) persists across its turns.
  const toolCtx: ToolContext = {
    trajectoryId: `${example.id}/demo`,
    groupIndex: 0,
    example,
    get toolCalls() {
      return toolCalls;
    },
    maxToolResponseTokens: opts.maxToolResponseTokens,
    countTokens: (s) => renderer.encode(s).length,
    signal: new AbortController().signal,
    state: new Map(),
  };
  try {
    for (const [k, turn] of turns.entries()) {
      const { text, stopToken } =
        turn.kind === 'text' ? { text: turn.text, stopToken: renderer.stopTokens[0]! } : renderDataTurn(renderer, env, messages, turn, example.id, k);
      const completion = [...renderer.encode(text), stopToken];
      turnStarts.push(tokens.length);
      texts.push(text);
      turnTokens.push(completion.length);
      tokens.push(...completion);
      mask.push(...completion.map(() => 1));
      let observation = turn.kind === 'answer' ? undefined : turn.observation;
      if (observation === undefined) {
        const action = parseWithEnv(renderer, env, text);
        if (action.kind === 'invalid' && (action.reason === 'unknown_tool' || action.reason === 'bad_arguments')) {
          throw badCallError(action.reason, text, renderer, env, example.id, k);
        }
        // The parser checks types only; a value outside an enum or a bound would come back as an error observation.
        if (turn.kind === 'text' && action.kind === 'tool') {
          for (const call of action.calls ?? [action.call]) {
            const tool = env.tools.find((t) => t.function.name === call.function.name);
            if (tool && argumentIssue(call.function.arguments, tool.function.parameters))
              throw badCallError('bad_arguments', text, renderer, env, example.id, k);
          }
        }
        const ends = (why: string) =>
          new DemonstrationError(example.id, k, `${why}, but ${turns.length - k - 1} more turn(s) follow; end the demonstration here or fix this turn`);
        if (action.kind !== 'tool') {
          if (k < turns.length - 1)
            throw ends(action.kind === 'answer' ? 'this turn is a final answer (no tool call)' : `this turn's tool call is malformed (${action.reason})`);
          break;
        }
        const outcome = await env.step(action, toolCtx);
        toolCalls += action.calls?.length ?? 1;
        if (outcome.done) {
          if (k < turns.length - 1) throw ends(`the environment ended the episode after this tool call`);
          break;
        }
        observation = outcome.observation;
      }
      const next = renderer.nextPrompt({
        messagesBeforeAssistant: messages,
        prevPromptTokens: prompt,
        completionTokens: completion,
        observation,
        tools: env.tools,
      });
      const delta = next.slice(tokens.length);
      tokens.push(...delta);
      mask.push(...delta.map(() => 0));
      messages = [...messages, { role: 'assistant', content: text }, ...observation];
      prompt = next;
    }
  } finally {
    await env.endTrajectory?.(toolCtx).catch(() => {});
  }
  return { tokens, mask, turnStarts, texts, turnTokens };
}

/**
 * A data turn as the model writes it: its calls checked against `env.tools` field by field, rendered by the chat
 * template ({@link assistantCompletion}), and parsed back to make sure the family's parser reads the same call(s).
 */
function renderDataTurn(
  renderer: Renderer,
  env: Environment,
  before: readonly Message[],
  turn: Exclude<CheckedTurn, { kind: 'text' }>,
  exampleId: string,
  k: number,
): { text: string; stopToken: number } {
  const fail = (message: string, field?: string) => new DemonstrationError(exampleId, k, message, field);
  const calls = turn.kind === 'calls' ? turn.calls : [];
  if (calls.length > 1 && env.parallelToolCalls !== true) {
    throw fail(`${calls.length} calls in one turn, but environment '${env.name}' allows one call per turn (parallelToolCalls is off)`, 'calls');
  }
  for (const [i, call] of calls.entries()) {
    const field = turn.kind === 'calls' && turn.field === 'calls' ? `calls.${i}` : 'call';
    const tool = env.tools.find((t) => t.function.name === call.name);
    if (!tool) {
      const offered = env.tools.map((t) => t.function.name);
      throw fail(`tool '${call.name}' is not offered by environment '${env.name}' (tools: ${offered.join(', ') || 'none'})`, `${field}.name`);
    }
    const issue = argumentIssue(call.arguments ?? {}, tool.function.parameters);
    if (issue) throw fail(`${issue.message} (tool '${call.name}')`, `${field}.arguments${issue.path === '(arguments)' ? '' : `.${issue.path}`}`);
  }
  const message: AssistantMessage = {
    role: 'assistant',
    content: turn.content,
    ...(calls.length > 0
      ? { toolCalls: calls.map((c) => ({ type: 'function' as const, function: { name: c.name, arguments: { ...(c.arguments ?? {}) } } })) }
      : {}),
  };
  const readsBack = (text: string) => {
    const parsed = parseWithEnv(renderer, env, text);
    const ok =
      turn.kind === 'calls'
        ? parsed.kind === 'tool' &&
          (parsed.calls ?? [parsed.call]).length === calls.length &&
          (parsed.calls ?? [parsed.call]).every(
            (c, i) => c.function.name === calls[i]!.name && canonicalJson(c.function.arguments) === canonicalJson(calls[i]!.arguments ?? {}),
          )
        : parsed.kind === 'answer';
    return { parsed, ok };
  };
  let rendered = assistantCompletion(renderer, before, message, { tools: env.tools });
  // Templates that write a call id into the call itself (Kimi K2: `functions.NAME:IDX`) get one in that form.
  if (rendered && calls.length > 0 && !readsBack(rendered.text).ok && message.toolCalls) {
    const withIds: AssistantMessage = { ...message, toolCalls: message.toolCalls.map((c, i) => ({ ...c, id: `functions.${c.function.name}:${i}` })) };
    const again = assistantCompletion(renderer, before, withIds, { tools: env.tools });
    if (again && readsBack(again.text).ok) rendered = again;
  }
  if (!rendered) {
    throw fail(`the chat template does not render this turn as a continuation of its generation prompt; write the turn as raw text ({ text })`);
  }
  const { parsed, ok: same } = readsBack(rendered.text);
  if (!same) {
    const got = parsed.kind === 'invalid' ? `invalid (${parsed.reason})` : parsed.kind;
    throw fail(
      `the chat template renders this turn as ${JSON.stringify(rendered.text.slice(0, 120))}, which the model family's parser reads as ${got}, not as the turn given; write the turn as raw text ({ text })`,
    );
  }
  return rendered;
}

/** JSON with object keys sorted at every depth (equal for equal values whatever the key order). */
export function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (v && typeof v === 'object') {
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v);
}

/** Names the tool or the argument field a raw-text call gets wrong, and what the environment offers. */
function badCallError(
  reason: 'unknown_tool' | 'bad_arguments',
  text: string,
  renderer: Renderer,
  env: Environment,
  exampleId: string,
  k: number,
): DemonstrationError {
  const offered = env.tools.map((t) => t.function.name);
  // Parsed without the tools: the family's syntax alone, so the call and its arguments can be named.
  const loose = renderer.parseAssistant(text, undefined, { parallelToolCalls: true });
  const calls = loose.kind === 'tool' ? (loose.calls ?? [loose.call]) : [];
  for (const [i, call] of calls.entries()) {
    const where = calls.length > 1 ? `calls.${i}` : 'call';
    const tool = env.tools.find((t) => t.function.name === call.function.name);
    if (!tool)
      return new DemonstrationError(
        exampleId,
        k,
        `calls tool '${call.function.name}', which environment '${env.name}' does not offer (tools: ${offered.join(', ') || 'none'})`,
        `${where}.name`,
      );
    const issue = argumentIssue(call.function.arguments, tool.function.parameters);
    if (issue)
      return new DemonstrationError(
        exampleId,
        k,
        `${issue.message} (tool '${call.function.name}')`,
        `${where}.arguments${issue.path === '(arguments)' ? '' : `.${issue.path}`}`,
      );
  }
  return new DemonstrationError(
    exampleId,
    k,
    reason === 'unknown_tool'
      ? `calls a tool environment '${env.name}' does not offer (tools: ${offered.join(', ') || 'none'})`
      : `the call's arguments do not fit the tool's schema`,
  );
}
