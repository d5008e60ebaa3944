/**
 * The mcp-agent task: facts about people live in the official MCP memory server (`@modelcontextprotocol/server-memory`,
 * one knowledge-graph entity per person); the policy answers `What is the favourite <thing> of <person>?` by calling
 * the server's `open_nodes` tool and replying `<answer>…</answer>`. Train and held-out questions ask about disjoint
 * people.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Example, McpStdioServer } from 'agentrl';

const PEOPLE = ['Ada', 'Alan', 'Grace', 'Linus', 'Barbara', 'Edsger', 'Donald', 'Margaret', 'Ken', 'Dennis', 'Frances', 'John', 'Radia', 'Tim', 'Shafi', 'Leslie'];
const THINGS = { colour: ['red', 'blue', 'green', 'amber'], fruit: ['apple', 'pear', 'plum', 'fig'] } as const;

/** One fact per (person, thing), picked deterministically. */
export function facts(): { person: string; thing: keyof typeof THINGS; value: string }[] {
  return PEOPLE.flatMap((person, i) => (Object.keys(THINGS) as (keyof typeof THINGS)[]).map((thing, k) => ({ person, thing, value: THINGS[thing][(i * 3 + k) % 4]! })));
}

/** Questions on the first 12 people (train) or the last 4 (test): disjoint by person. */
export function questions(split: 'train' | 'test'): Example[] {
  const people = new Set(split === 'train' ? PEOPLE.slice(0, 12) : PEOPLE.slice(12));
  return facts()
    .filter((f) => people.has(f.person))
    .map((f) => ({ id: `${f.person}-${f.thing}`, question: `What is the favourite ${f.thing} of ${f.person}?`, answer: f.value, meta: { person: f.person } }));
}

/** The memory server over stdio, from node_modules, with its own memory file. */
export function memoryServer(): McpStdioServer {
  const file = join(mkdtempSync(join(tmpdir(), 'agentrl-mcp-agent-')), 'memory.jsonl');
  return { command: process.execPath, args: [fileURLToPath(new URL('../../node_modules/@modelcontextprotocol/server-memory/dist/index.js', import.meta.url))], env: { MEMORY_FILE_PATH: file } };
}

/** The entities that store every fact (one per person, one observation per fact). */
export function entities() {
  const byPerson = new Map<string, string[]>();
  for (const f of facts()) byPerson.set(f.person, [...(byPerson.get(f.person) ?? []), `favourite ${f.thing}: ${f.value}`]);
  return [...byPerson].map(([name, observations]) => ({ name, entityType: 'person', observations }));
}

export const SYSTEM_PROMPT = 'Look the person up with open_nodes, then reply <answer>the value</answer>.';
