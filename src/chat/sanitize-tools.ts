import type { ToolDefinition } from '../types/message.js';
import { sanitizeToolContent } from './sanitize.js';

/** Nesting past this depth is not walked further: it is cut to `null` (no template renders that deep a schema). */
const MAX_DEPTH = 64;

/**
 * Tool definitions as they may enter a chat template: every string in them — the name, the description, and every
 * string of the JSON schema (descriptions, titles, enum values, defaults, examples, patterns) and every property name
 * — goes through {@link sanitizeToolContent}, so no text of a definition (an MCP server's, an agent's, a custom
 * environment's) can encode to a control token (`<|im_end|>`, `</tool_call>`, …). Non-JSON values (functions,
 * symbols, `undefined`) are dropped, cycles and nesting past 64 levels become `null`. Definitions without any special
 * string come back as the same objects (the common case costs one walk).
 * @param tools - the definitions offered to the model.
 * @param specialTokens - the tokenizer's added-token strings (the renderer's `specialTokens`).
 */
export function sanitizeToolDefinitions(tools: readonly ToolDefinition[], specialTokens: readonly string[]): ToolDefinition[] {
  const needles = specialTokens.filter((t) => t.length >= 2);
  if (needles.length === 0) return [...tools];
  return tools.map((t) => clean(t, needles, 0, new Set()) as ToolDefinition);
}

function clean(v: unknown, needles: readonly string[], depth: number, path: Set<object>): unknown {
  if (typeof v === 'string') return sanitizeToolContent(v, needles);
  if (v === null || typeof v === 'number' || typeof v === 'boolean') return v;
  if (typeof v !== 'object') return undefined;
  if (depth >= MAX_DEPTH || path.has(v)) return null;
  path.add(v);
  try {
    if (Array.isArray(v)) {
      let changed = false;
      const out = v.map((x) => {
        const y = clean(x, needles, depth + 1, path);
        if (y !== x) changed = true;
        return y === undefined ? null : y;
      });
      return changed ? out : v;
    }
    let changed = false;
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      const key = sanitizeToolContent(k, needles);
      const y = clean(x, needles, depth + 1, path);
      if (key !== k || y !== x) changed = true;
      if (y !== undefined) out[key] = y;
    }
    return changed ? out : v;
  } finally {
    path.delete(v);
  }
}
