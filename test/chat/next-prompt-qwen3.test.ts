import { beforeAll, describe, expect, it } from 'vitest';
import type { ChatRenderer } from '../../src/chat/renderer.js';
import { PromptPrefixError } from '../../src/errors/data-errors.js';
import type { Message, ToolCall, ToolDefinition } from '../../src/types/message.js';
import { CODE_TOOL, loadQwen3, pyJson } from './qwen3-fixture.js';

/** One simulated assistant turn. */
interface TurnSpec {
  readonly reasoning?: string;
  readonly content: string;
  readonly calls?: readonly Record<string, unknown>[]; // code_interpreter arguments, one per call
}

interface Episode {
  readonly name: string;
  readonly thinking: boolean;
  readonly opening: readonly Message[];
  readonly turns: readonly TurnSpec[];
  /** Observation messages after each non-final turn. */
  readonly observations: readonly (readonly Message[])[];
  readonly tools?: readonly ToolDefinition[];
}

const toolCall = (args: Record<string, unknown>): ToolCall => ({ type: 'function', function: { name: 'code_interpreter', arguments: args } });

/** The completion text exactly as the template renders this turn after its generation prompt (no stop token). */
function completionText(t: TurnSpec, thinking: boolean): string {
  let text = thinking ? `<think>\n${t.reasoning ?? ''}\n</think>\n\n${t.content}` : t.content;
  (t.calls ?? []).forEach((args, i) => {
    if (i > 0 || t.content) text += '\n';
    text += `<tool_call>\n{"name": "code_interpreter", "arguments": ${pyJson(args)}}\n</tool_call>`;
  });
  return text;
}

const EMPTY_THINK = [151667, 271, 151668, 271];

let r: ChatRenderer;
beforeAll(async () => {
  r = await loadQwen3();
});

/**
 * Runs an episode the way the rollout engine does: sample (simulated) → parse → nextPrompt, keeping
 * sampled tokens verbatim. Returns the token-in/token-out sequence, the prompts and the messages.
 */
function runEpisode(ep: Episode) {
  const kwargs = { enable_thinking: ep.thinking };
  const tools = ep.tools ?? [CODE_TOOL];
  const messages: Message[] = [...ep.opening];
  let prompt = r.renderPrompt(messages, { tools, templateKwargs: kwargs });
  const prompts = [prompt];
  let tokens: number[] = [];
  ep.turns.forEach((turn, i) => {
    const completion = r.encode(completionText(turn, ep.thinking) + '<|im_end|>');
    const parsed = r.parseAssistant(r.decode(completion), tools);
    let assistant: Message;
    if ((turn.calls ?? []).length === 1) {
      expect(parsed.kind).toBe('tool');
      if (parsed.kind !== 'tool') throw new Error('unreachable');
      assistant = { role: 'assistant', content: parsed.content, toolCalls: [parsed.call] };
    } else if ((turn.calls ?? []).length > 1) {
      expect(parsed).toMatchObject({ kind: 'invalid', reason: 'multiple_tool_calls' });
      const head = ep.thinking ? `<think>\n${turn.reasoning ?? ''}\n</think>\n\n${turn.content}` : turn.content;
      assistant = { role: 'assistant', content: head, toolCalls: (turn.calls ?? []).map(toolCall) };
    } else {
      expect(parsed.kind).toBe('answer');
      assistant = { role: 'assistant', content: parsed.content };
    }
    if (i === ep.turns.length - 1) {
      tokens = [...prompt, ...completion];
      messages.push(assistant);
      return;
    }
    const observation = ep.observations[i] ?? [];
    const next = r.nextPrompt({
      messagesBeforeAssistant: messages,
      prevPromptTokens: prompt,
      completionTokens: completion,
      observation,
      tools,
      templateKwargs: kwargs,
    });
    // The observation starts with the never-sampled "\n" after <|im_end|>, then the next header.
    expect(next.slice(prompt.length + completion.length, prompt.length + completion.length + 2)).toEqual([198, 151644]);
    messages.push(assistant, ...observation);
    prompt = next;
    prompts.push(prompt);
  });
  const full = r.renderPrompt(messages, { tools, addGenerationPrompt: false, templateKwargs: kwargs });
  return { tokens, prompts, messages, full, kwargs, tools };
}

const user = (content: string): Message => ({ role: 'user', content });
const tool = (content: string): Message => ({ role: 'tool', content, name: 'code_interpreter' });

const thinkingEpisodes: Episode[] = [
  {
    name: 'one tool call then an answer',
    thinking: true,
    opening: [user('What is 2**100 mod 7?')],
    turns: [
      { reasoning: 'Let me compute.', content: "I'll compute it.", calls: [{ code: 'print(2**100 % 7)' }] },
      { reasoning: 'The tool said 2.', content: 'So the answer is \\boxed{2}.' },
    ],
    observations: [[tool('2')]],
  },
  {
    name: 'system prompt, two tool turns, code with quotes and newlines',
    thinking: true,
    opening: [{ role: 'system', content: 'You solve math problems step by step.' }, user('Sum the primes below 30.')],
    turns: [
      { reasoning: 'Use sympy.', content: '', calls: [{ code: 'from sympy import primerange\nprint(sum(primerange(1, 30)), "done")' }] },
      { reasoning: 'Check by hand.', content: 'Double-check:', calls: [{ code: "ps=[2,3,5,7,11,13,17,19,23,29]\nprint('sum =', sum(ps))" }] },
      { reasoning: 'Both give 129.', content: '\\boxed{129}' },
    ],
    observations: [[tool('129 done')], [tool('sum = 129')]],
  },
  {
    name: 'two tool calls in one turn answered by two tool messages',
    thinking: true,
    opening: [user('Compare 3**40 and 4**30.')],
    turns: [
      { reasoning: 'Two computations.', content: 'Computing both.', calls: [{ code: 'print(3**40)' }, { code: 'print(4**30)' }] },
      { reasoning: '3**40 is larger.', content: '\\boxed{3^{40}}' },
    ],
    observations: [[tool('12157665459056928801'), tool('1152921504606846976')]],
  },
  {
    name: 'tool output with an error, special tokens and unicode',
    thinking: true,
    opening: [user('Évaluez 1/0 — 中文?')],
    turns: [
      { reasoning: 'Try it.', content: 'Running.', calls: [{ code: 'print(1/0)' }] },
      { reasoning: 'Division by zero.', content: 'Undefined: \\boxed{\\text{undefined}}' },
    ],
    observations: [[tool('Traceback (most recent call last):\nZeroDivisionError: division by zero <|im_end|></tool_response> 𝔘')]],
  },
];

const nonThinkingEpisodes: Episode[] = [
  {
    name: 'thinking off: one tool call then an answer',
    thinking: false,
    opening: [user('What is 2**100 mod 7?')],
    turns: [{ content: 'Let me compute.', calls: [{ code: 'print(2**100 % 7)' }] }, { content: '\\boxed{2}' }],
    observations: [[tool('2')]],
  },
  {
    name: 'thinking off: two tool turns',
    thinking: false,
    opening: [{ role: 'system', content: 'Be brief.' }, user('Factor 391.')],
    turns: [
      { content: '', calls: [{ code: 'print(391 % 17)' }] },
      { content: 'Divisible by 17.', calls: [{ code: 'print(391 // 17)' }] },
      { content: '391 = 17 × 23, \\boxed{17 \\cdot 23}' },
    ],
    observations: [[tool('0')], [tool('23')]],
  },
];

describe('nextPrompt with Qwen3: incremental tokens equal the full render', () => {
  it.each(thinkingEpisodes.map((e) => [e.name, e] as const))('thinking on, %s', (_name, ep) => {
    // Hazard: a missing "\n" after <|im_end|>, a re-tokenised boundary or a rewritten turn would make the
    // trained sequence differ from what the template (and the sampler) sees.
    const { tokens, prompts, messages, full, tools, kwargs } = runEpisode(ep);
    expect(full.at(-1)).toBe(198);
    expect(tokens).toEqual(full.slice(0, -1));
    // With thinking on and no new user message, every intermediate prompt is also the canonical render.
    let k = ep.opening.length;
    prompts.forEach((p, i) => {
      if (i > 0) k += 1 + (ep.observations[i - 1]?.length ?? 0);
      expect(p).toEqual(r.renderPrompt(messages.slice(0, k), { tools, templateKwargs: kwargs }));
    });
  });

  it.each(nonThinkingEpisodes.map((e) => [e.name, e] as const))('%s (differs only by the kept empty think blocks)', (_name, ep) => {
    // Measured template fact: with enable_thinking=false the generation prompt holds an empty think block
    // that a re-render drops from non-final assistant turns; everything else must match.
    const { tokens, full } = runEpisode(ep);
    const withoutKept = dropAllButLast(tokens, EMPTY_THINK);
    expect(countRuns(tokens, EMPTY_THINK)).toBe(ep.turns.length);
    expect(withoutKept).toEqual(full.slice(0, -1));
  });
});

describe('nextPrompt with Qwen3: edge cases', () => {
  const before: Message[] = [user('What is 2**100 mod 7?')];
  const completionText0 = completionText({ reasoning: 'r', content: 'Run.', calls: [{ code: 'print(1)' }] }, true);

  it('appends the missing <|im_end|> when the completion has no stop token', () => {
    // Hazard (pitfall i): a length-truncated turn has no <|im_end|>; the closing must be added in full.
    const prompt = r.renderPrompt(before, { tools: [CODE_TOOL] });
    const args = { messagesBeforeAssistant: before, prevPromptTokens: prompt, observation: [tool('1')], tools: [CODE_TOOL] };
    const withStop = r.encode(completionText0 + '<|im_end|>');
    const withoutStop = r.encode(completionText0);
    const a = r.nextPrompt({ ...args, completionTokens: withStop });
    const b = r.nextPrompt({ ...args, completionTokens: withoutStop });
    expect(b).toEqual(a);
    expect(b.slice(prompt.length + withoutStop.length, prompt.length + withoutStop.length + 3)).toEqual([151645, 198, 151644]);
  });

  it('keeps the sampled ids verbatim even when they are not the canonical encoding', () => {
    // Hazard (pitfall d): decode→encode is not the identity; the sampled split [32713, 385] must survive.
    const prompt = r.renderPrompt(before);
    const completion = [32713, 385, 151645]; // "Hel" + "lo", not the canonical [9707]
    const next = r.nextPrompt({ messagesBeforeAssistant: before, prevPromptTokens: prompt, completionTokens: completion, observation: [tool('ok')] });
    expect(next.slice(0, prompt.length + 3)).toEqual([...prompt, ...completion]);
  });

  it('locates the placeholder after the history, not by lastIndexOf, when tool output contains "x<|im_end|>"', () => {
    const prompt = r.renderPrompt(before);
    const completion = r.encode('Hi<|im_end|>');
    const next = r.nextPrompt({
      messagesBeforeAssistant: before,
      prevPromptTokens: prompt,
      completionTokens: completion,
      observation: [tool('max x\nx')],
    });
    expect(r.decode(next.slice(prompt.length + completion.length))).toBe(
      '\n<|im_start|>user\n<tool_response>\nmax x\nx\n</tool_response><|im_end|>\n<|im_start|>assistant\n',
    );
  });

  it('throws PromptPrefixError when a new user message makes Qwen3 strip earlier <think> blocks', () => {
    // Hazard (pitfall a): after a new user query the template drops earlier reasoning, so a re-rendered
    // prompt no longer extends the trained tokens; this must be detected, never silently accepted.
    const ep = runEpisode(thinkingEpisodes[0]!);
    const history = ep.messages.slice(0, 3); // user, assistant (with <think>), tool
    const prompt = ep.prompts[1]!;
    const completion = r.encode(completionText({ reasoning: 'Now the answer.', content: '\\boxed{2}' }, true) + '<|im_end|>');
    expect(() =>
      r.nextPrompt({
        messagesBeforeAssistant: history,
        prevPromptTokens: prompt,
        completionTokens: completion,
        observation: [user('And 2**200 mod 7?')],
        tools: [CODE_TOOL],
      }),
    ).toThrow(expect.objectContaining({ code: 'PROMPT_PREFIX_MISMATCH', message: expect.stringMatching(/rewrote earlier history/) }));
  });

  it('throws PromptPrefixError when the sampled turn has reasoning the template would drop after a new user message', () => {
    const prompt = r.renderPrompt(before);
    const completion = r.encode(completionText({ reasoning: 'Easy.', content: '\\boxed{2}' }, true) + '<|im_end|>');
    expect(() =>
      r.nextPrompt({ messagesBeforeAssistant: before, prevPromptTokens: prompt, completionTokens: completion, observation: [user('Are you sure?')] }),
    ).toThrow(PromptPrefixError);
    expect(() =>
      r.nextPrompt({ messagesBeforeAssistant: before, prevPromptTokens: prompt, completionTokens: completion, observation: [user('Are you sure?')] }),
    ).toThrow(/drops the reasoning/);
  });

  it('accepts a new user message when no reasoning is involved (thinking off, no think in history)', () => {
    const kwargs = { enable_thinking: false };
    const prompt = r.renderPrompt(before, { templateKwargs: kwargs });
    const completion = r.encode('\\boxed{2}<|im_end|>');
    const next = r.nextPrompt({
      messagesBeforeAssistant: before,
      prevPromptTokens: prompt,
      completionTokens: completion,
      observation: [user('Sure?')],
      templateKwargs: kwargs,
    });
    expect(r.decode(next.slice(prompt.length + completion.length))).toBe('\n<|im_start|>user\nSure?<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n');
  });
});

function countRuns(tokens: readonly number[], run: readonly number[]): number {
  let n = 0;
  for (let i = 0; i + run.length <= tokens.length; i++) if (run.every((t, j) => tokens[i + j] === t)) n++;
  return n;
}

/** Removes every occurrence of `run` except the last one. */
function dropAllButLast(tokens: readonly number[], run: readonly number[]): number[] {
  const total = countRuns(tokens, run);
  const out: number[] = [];
  let seen = 0;
  for (let i = 0; i < tokens.length; i++) {
    if (i + run.length <= tokens.length && run.every((t, j) => tokens[i + j] === t) && seen < total - 1) {
      seen++;
      i += run.length - 1;
      continue;
    }
    out.push(tokens[i]!);
  }
  return out;
}
