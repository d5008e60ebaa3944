import type { ToolCall } from '../../types/message.js';
import type { NextPromptArgs } from '../types.js';
import type { CodeRenderOptions, CodeTemplate, ModelFamily } from './types.js';

/** What {@link codeTemplateNextPrompt} needs from the renderer. */
export interface CodeNextPromptDeps {
  encode(text: string): number[];
  decode(tokens: readonly number[]): string;
  readonly stopTokens: readonly number[];
  readonly codeToolName: string;
  readonly render: CodeRenderOptions;
}

/**
 * The next prompt of a family rendered in code: `prevPromptTokens ++ completionTokens ++ [turn end, when the sampled
 * tokens do not end with a stop token] ++ encode(observation text)`. The observation text (tool messages and the next
 * assistant header) is what the family's format writes after a call turn, so no placeholder is needed; the sampled
 * tokens are never re-encoded. Tool messages without a `name` take the name of the call they answer (in order).
 */
export function codeTemplateNextPrompt(template: CodeTemplate, family: ModelFamily, args: NextPromptArgs, deps: CodeNextPromptDeps): number[] {
  const last = args.completionTokens[args.completionTokens.length - 1];
  const ended = last !== undefined && deps.stopTokens.includes(last);
  let calls: readonly ToolCall[] = [];
  if (args.observation.some((m) => m.role === 'tool' && m.name === undefined)) {
    const text = deps.decode(ended ? args.completionTokens.slice(0, -1) : args.completionTokens);
    const parsed = family.parse(text, { parallelToolCalls: true, format: 'json', codeToolName: deps.codeToolName });
    if (parsed.kind === 'calls') calls = parsed.calls;
  }
  const obs = template.renderObservation(args.observation, calls, deps.render);
  return [...args.prevPromptTokens, ...args.completionTokens, ...(ended ? [] : deps.encode(template.callTurnEnd)), ...deps.encode(obs)];
}
