import type { AssistantMessage, Message } from '../types/message.js';
import type { RenderOptions, Renderer } from './types.js';

/** What the model writes for one assistant message: the text before its stop token, and that stop token. */
export interface AssistantCompletion {
  /** The completion text in the family's own syntax (call markup included), without the stop token. */
  readonly text: string;
  /** The token that ends the turn (the one the template closes this message with when it is a stop token). */
  readonly stopToken: number;
}

/**
 * The completion a model of `renderer`'s family writes for `message` after `before`: the chat template renders the
 * conversation with the message (no generation prompt) and without it (with the generation prompt), and the
 * difference is the turn as the model writes it — `<tool_call>{json}</tool_call>` for Qwen, `[TOOL_CALLS]…` for
 * Mistral, harmony's `commentary to=functions.NAME` for GPT-OSS, and so on. The text is cut at the last stop token
 * the template closes the message with (e.g. Qwen's `<|im_end|>`); without one, the renderer's first stop token ends
 * the turn.
 * @returns `null` when the template renders the earlier conversation differently once the message is appended (the
 *   difference is not a continuation of the generation prompt), or renders nothing for the message.
 */
export function assistantCompletion(
  renderer: Pick<Renderer, 'renderPrompt' | 'decode' | 'encode' | 'stopTokens'>,
  before: readonly Message[],
  message: AssistantMessage,
  opts: Pick<RenderOptions, 'tools' | 'templateKwargs'> = {},
): AssistantCompletion | null {
  const prompt = renderer.decode(renderer.renderPrompt(before, { ...opts, addGenerationPrompt: true }));
  const full = renderer.decode(renderer.renderPrompt([...before, message], { ...opts, addGenerationPrompt: false }));
  if (!full.startsWith(prompt)) return null;
  const body = full.slice(prompt.length);
  let cut = -1;
  let stopToken = renderer.stopTokens[0]!;
  for (const id of renderer.stopTokens) {
    const s = renderer.decode([id]);
    if (s === '') continue;
    const at = body.lastIndexOf(s);
    // The closing stop token is the last thing the template writes for the message, up to whitespace.
    if (at >= 0 && body.slice(at + s.length).trim() === '' && at > cut) {
      cut = at;
      stopToken = id;
    }
  }
  const text = cut >= 0 ? body.slice(0, cut) : body.trimEnd();
  if (text.trim() === '') return null;
  return { text, stopToken };
}
