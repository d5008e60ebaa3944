import type { Message } from '../types/message.js';
import { PromptPrefixError } from '../errors/data-errors.js';
import { suffixPrefixOverlap } from './overlap.js';

/**
 * Content of the placeholder assistant message (the ReTool recipe, KMnO4-zx/agentic-rl-lab `05-retool/protocol.py`: a
 * one-character reply the template cannot reinterpret).
 */
export const PLACEHOLDER = 'x';

/** What {@link spliceObservation} needs from a renderer: string rendering plus the tokenizer. */
export interface SpliceDeps {
  /** Renders `messages` to text with the chat template (same tools / kwargs for every call). */
  render(messages: readonly Message[], addGenerationPrompt: boolean): string;
  /** Encodes one string (added tokens recognised, no BOS/EOS added). */
  encode(text: string): number[];
  decode(tokens: readonly number[]): string;
}

/** Arguments of {@link spliceObservation}. */
export interface SpliceArgs {
  readonly messagesBeforeAssistant: readonly Message[];
  readonly prevPromptTokens: readonly number[];
  readonly completionTokens: readonly number[];
  readonly observation: readonly Message[];
}

/**
 * Builds the next prompt by extension with the placeholder-assistant trick (the ReTool recipe's
 * `build_next_prompt`; checked on the real Qwen3 template in `test/chat/next-prompt-qwen3.test.ts`), working on rendered text and encoding once:
 * 1. `P = render(before)`, `A = render([...before, {assistant: 'x'}])`; the text after the last `x` of
 *    `A` is the template's assistant closing (Qwen: `<|im_end|>\n`).
 * 2. `B = render([...before, {assistant: 'x'}, ...observation], generation prompt)`; the placeholder
 *    is located by searching `'x' + closing` after `P` (never `lastIndexOf`: tool output may contain
 *    it). Only the text after the placeholder is compared, because templates may render the last
 *    assistant differently (Qwen3 adds an empty think block to it).
 * 3. The part of the closing the model already sampled (token suffix/prefix overlap, usually the stop
 *    token `<|im_end|>`) is skipped; the rest of the closing plus the observation text is encoded as
 *    ONE string, so Qwen's observation starts with `\n` (198), which is never sampled.
 *
 * Result: `prevPromptTokens ++ completionTokens ++ encode(closing[overlap:] + observationText)`.
 *
 * @throws PromptPrefixError when `A` or `B` does not start with `P` (appending messages rewrote
 *   earlier history, e.g. Qwen3 dropping `<think>` blocks after a new user message), when `B` has no
 *   `'x' + closing` after `P`, or when the sampled turn contains a `</think>` block that the template
 *   would drop once `observation` is appended.
 */
export function spliceObservation(deps: SpliceDeps, args: SpliceArgs): number[] {
  const { messagesBeforeAssistant: before, observation } = args;
  const placeholder: Message = { role: 'assistant', content: PLACEHOLDER };
  const { closingText, obsText } = observationText(deps, before, placeholder, observation);

  const completionText = deps.decode(args.completionTokens);
  if (completionText.includes('</think>')) checkReasoningKept(deps, before, observation);

  const closingTokens = deps.encode(closingText);
  const overlap = suffixPrefixOverlap(args.completionTokens, closingTokens);
  const covered = deps.decode(closingTokens.slice(0, overlap));
  const tail = closingText.startsWith(covered)
    ? deps.encode(closingText.slice(covered.length) + obsText)
    : [...closingTokens.slice(overlap), ...deps.encode(obsText)];
  return [...args.prevPromptTokens, ...args.completionTokens, ...tail];
}

/** Closing text after the placeholder and the observation text after that closing. */
function observationText(
  deps: SpliceDeps,
  before: readonly Message[],
  placeholder: Message,
  observation: readonly Message[],
): { closingText: string; obsText: string } {
  const prefix = deps.render(before, false);
  const a = deps.render([...before, placeholder], false);
  if (!a.startsWith(prefix)) {
    throw new PromptPrefixError('the chat template renders earlier history differently once an assistant message is appended');
  }
  const iA = a.lastIndexOf(PLACEHOLDER);
  if (iA < prefix.length) {
    throw new PromptPrefixError('the placeholder assistant message does not appear in the rendered template');
  }
  const closingText = a.slice(iA + PLACEHOLDER.length);
  const b = deps.render([...before, placeholder, ...observation], true);
  if (!b.startsWith(prefix)) {
    throw new PromptPrefixError(
      'the chat template rewrote earlier history when the observation was appended ' +
        '(e.g. Qwen3 strips <think> blocks before a new user message); the next prompt would not extend the previous tokens',
    );
  }
  const iB = b.indexOf(PLACEHOLDER + closingText, prefix.length);
  if (iB < 0) {
    throw new PromptPrefixError('the assistant closing after the placeholder changed when the observation was appended');
  }
  return { closingText, obsText: b.slice(iB + PLACEHOLDER.length + closingText.length) };
}

/**
 * Probe for templates that drop the reasoning of a turn once something is appended after it
 * (Qwen3 after a new user message): render a placeholder that carries a think block with and without
 * the observation and require the text before the placeholder to be identical.
 */
function checkReasoningKept(deps: SpliceDeps, before: readonly Message[], observation: readonly Message[]): void {
  const probe: Message = { role: 'assistant', content: `<think>\nr\n</think>\n\n${PLACEHOLDER}` };
  const prefix = deps.render(before, false);
  const a = deps.render([...before, probe], false);
  const b = deps.render([...before, probe, ...observation], true);
  const head = a.slice(prefix.length, a.lastIndexOf(PLACEHOLDER));
  if (!b.startsWith(prefix) || !b.startsWith(head, prefix.length)) {
    throw new PromptPrefixError(
      'the chat template drops the reasoning (<think> block) of the sampled turn once the observation is appended ' +
        '(e.g. Qwen3 after a new user message); the sampled tokens would not match a re-render',
    );
  }
}
