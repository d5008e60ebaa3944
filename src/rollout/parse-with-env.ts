import type { Renderer } from '../chat/types.js';
import type { Environment } from '../env/types.js';
import type { ParsedAction } from '../types/action.js';

/**
 * Parses an assistant reply with the chat parser (format, one call, schema of the offered tools), then applies the
 * environment's own rule for the call (`Environment.checkToolCall`, e.g. the code interpreter's "non-blank code").
 */
export function parseWithEnv(renderer: Pick<Renderer, 'parseAssistant'>, env: Pick<Environment, 'tools' | 'checkToolCall'>, text: string): ParsedAction {
  const parsed = renderer.parseAssistant(text, env.tools);
  if (parsed.kind !== 'tool' || !env.checkToolCall) return parsed;
  const reason = env.checkToolCall(parsed.call);
  return reason === null ? parsed : { kind: 'invalid', reason, content: parsed.raw, raw: parsed.raw };
}
