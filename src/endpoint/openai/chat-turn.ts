import type { Renderer } from '../../chat/types.js';
import type { SampledSequence, SamplingParams } from '../../types/sampling.js';
import { withoutStop } from './sampling.js';
import { extractToolCalls } from './tool-calls.js';

import type { ChoiceResult, TurnTicket } from './turn-hooks.js';

export type { ChoiceResult, TurnHooks, TurnRequest, TurnTicket } from './turn-hooks.js';

/**
 * Decodes sampled sequences into choices: the text without the stop token and, when `parseTools`, its tool calls in
 * the served family's syntax (several per turn) with `finishReason: 'tool_calls'`.
 */
export function decodeChoices(renderer: Renderer, seqs: readonly SampledSequence[], stop: readonly number[], parseTools: boolean): ChoiceResult[] {
  return seqs.map((seq) => {
    const text = renderer.decode(withoutStop(seq.tokens, stop));
    const message = parseTools
      ? extractToolCalls(text, (t) => renderer.parseAssistant(t, undefined, { parallelToolCalls: true }))
      : { content: text, toolCalls: [] };
    const finishReason = message.toolCalls.length > 0 ? 'tool_calls' : seq.stopReason;
    return { seq, text, message, finishReason };
  });
}

/**
 * One turn through a ticket: prompt, sample (`params` with the server's `maxTokens`; stop tokens = the model's), decode
 * and choose. Releases the ticket when any step throws.
 */
export async function sampleTurn(
  renderer: Renderer,
  ticket: TurnTicket,
  params: SamplingParams,
  parseTools: boolean,
): Promise<{ readonly prompt: readonly number[]; readonly results: readonly ChoiceResult[] }> {
  try {
    const prompt = ticket.prompt();
    const seqs = await ticket.sample(prompt, params);
    const results = ticket.choose(decodeChoices(renderer, seqs, params.stop ?? [], parseTools));
    return { prompt, results };
  } catch (e) {
    ticket.release();
    throw e;
  }
}
