import type { Renderer } from '../chat/types.js';
import type { Environment } from '../env/types.js';
import type { ParsedAction } from '../types/action.js';

/**
 * Parses an assistant reply with the chat parser (format, one call — several when the environment allows parallel tool
 * calls —, schema of the offered tools), then applies the environment's own rule to every call (`Environment.checkToolCall`, e.g. the code interpreter's "non-blank code").
 */
export function parseWithEnv(
  renderer: Pick<Renderer, 'parseAssistant'>,
  env: Pick<Environment, 'tools' | 'checkToolCall' | 'parallelToolCalls'>,
  text: string,
): ParsedAction {
  const parsed =
    env.parallelToolCalls === true ? renderer.parseAssistant(text, env.tools, { parallelToolCalls: true }) : renderer.parseAssistant(text, env.tools);
  if (parsed.kind !== 'tool' || !env.checkToolCall) return parsed;
  for (const call of parsed.calls ?? [parsed.call]) {
    const reason = env.checkToolCall(call);
    if (reason !== null) return { kind: 'invalid', reason, content: parsed.raw, raw: parsed.raw };
  }
  return parsed;
}
