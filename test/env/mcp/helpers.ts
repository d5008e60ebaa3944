import { fileURLToPath } from 'node:url';
import { scriptedSampler } from 'agentrl/testing';
import type { Renderer } from 'agentrl';

export const NODE = process.execPath;
const root = (p: string) => fileURLToPath(new URL(`../../../${p}`, import.meta.url));
/** The fixture server (official SDK, stdio) and the real servers from npm, run with node from node_modules. */
export const TEST_SERVER = root('test/fixtures/mcp/test-server.mjs');
export const MEMORY_SERVER = root('node_modules/@modelcontextprotocol/server-memory/dist/index.js');
export const FILESYSTEM_SERVER = root('node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');
export const EVERYTHING_SERVER = root('node_modules/@modelcontextprotocol/server-everything/dist/index.js');

export const call = (name: string, args: unknown = {}) => `<tool_call>\n${JSON.stringify({ name, arguments: args })}\n</tool_call>`;

/** The tool responses already in a rendered prompt, in order. */
export function toolResponses(prompt: string): string[] {
  return [...prompt.matchAll(/<tool_response>\n?([\s\S]*?)\n?<\/tool_response>/g)].map((m) => m[1]!);
}

/**
 * A scripted model: `plan(responses, sample)` gives the next completion from the tool responses seen so far
 * (`sample` tells the group's branches apart on the first turn; later turns see their own responses).
 */
export function planSampler(renderer: Renderer, plan: (responses: string[], sample: number) => string) {
  return scriptedSampler({ renderer, script: ({ prompt, sample }) => plan(toolResponses(prompt), sample) });
}

/** True while a process with this id exists. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
