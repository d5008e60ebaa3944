import type { ConfigIssue } from '../errors/config-error.js';
import { utf8ByteLength } from '../platform/host.js';

/** A tool name the model can call: a letter, then up to 63 letters, digits, `_` or `-` (what `defineTool` accepts). */
export const TOOL_NAME_PATTERN = /^[A-Za-z][\w-]{0,63}$/;

/**
 * Longest tool definition accepted, as JSON (UTF-8 bytes): a definition is rendered into every prompt, so a server
 * that lists megabytes of description would crowd out the task. @default 65536
 */
export const MAX_TOOL_DEFINITION_BYTES = 64 * 1024;

/** Why `name` cannot be a tool name, or undefined when it can. */
export function toolNameProblem(name: unknown): string | undefined {
  if (typeof name !== 'string') return `expected a string name, got ${typeof name}`;
  if (!TOOL_NAME_PATTERN.test(name))
    return `${JSON.stringify(name.length > 80 ? `${name.slice(0, 80)}…` : name)} is not a tool name (letters, digits, _ and -, starting with a letter, at most 64)`;
  return undefined;
}

/**
 * Checks tool definitions before they are offered to the model, whatever wrote them (an environment, an MCP server,
 * AI SDK tools): each is `{ type: 'function', function: { name, description, parameters } }` with a valid name
 * ({@link TOOL_NAME_PATTERN}), a string description, an object `parameters`, at most
 * {@link MAX_TOOL_DEFINITION_BYTES} as JSON, and no two share a name (a call could not say which it means).
 * Special-token strings inside the texts are not refused here: the renderer defuses them where the definitions enter
 * the chat template (`sanitizeToolDefinitions`).
 * @param tools - the definitions.
 * @param path - the option path issues are reported under, e.g. `'tools'` or `'env.tools'`.
 * @returns the issues (empty when every definition is fine).
 */
export function toolDefinitionIssues(tools: unknown, path = 'tools'): ConfigIssue[] {
  if (!Array.isArray(tools)) return [{ path, message: 'expected an array of tool definitions' }];
  const issues: ConfigIssue[] = [];
  const seen = new Set<string>();
  tools.forEach((t: unknown, i) => {
    const at = `${path}.${i}`;
    const fn = (t as { function?: unknown } | null)?.function as { name?: unknown; description?: unknown; parameters?: unknown } | undefined;
    if (typeof t !== 'object' || t === null || (t as { type?: unknown }).type !== 'function' || typeof fn !== 'object' || fn === null) {
      issues.push({ path: at, message: "expected { type: 'function', function: { name, description, parameters } }" });
      return;
    }
    const bad = toolNameProblem(fn.name);
    if (bad) issues.push({ path: `${at}.function.name`, message: bad });
    else if (seen.has(fn.name as string)) issues.push({ path: `${at}.function.name`, message: `two tools share a name ('${fn.name as string}')` });
    else seen.add(fn.name as string);
    if (fn.description !== undefined && typeof fn.description !== 'string')
      issues.push({ path: `${at}.function.description`, message: `expected a string, got ${typeof fn.description}` });
    if (fn.parameters !== undefined && (typeof fn.parameters !== 'object' || fn.parameters === null || Array.isArray(fn.parameters))) {
      issues.push({ path: `${at}.function.parameters`, message: 'expected a JSON schema object' });
    }
    let bytes: number;
    try {
      bytes = utf8ByteLength(JSON.stringify(t) ?? '');
    } catch (e) {
      issues.push({ path: at, message: `is not JSON (${e instanceof Error ? e.message : String(e)})` });
      return;
    }
    if (bytes > MAX_TOOL_DEFINITION_BYTES) issues.push({ path: at, message: `is ${bytes} bytes as JSON, more than ${MAX_TOOL_DEFINITION_BYTES}` });
  });
  return issues;
}
