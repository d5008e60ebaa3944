/**
 * The mcp-agent task: depots, one per country, keep their records in a folder served by the official MCP filesystem
 * server (`@modelcontextprotocol/server-filesystem`): `Peru/code`, `Peru/total`, `Peru/count`, each a random two-digit number.
 * The policy answers `What is the code of Peru?` by calling the server's `read_text_file` tool with the path
 * `Peru/code` and replying `<answer>23</answer>`. The numbers are random, so only the tool knows them.
 *
 * Held-out questions are (depot, field) pairs never asked in training: one field of every depot (field `i mod 3` of
 * depot `i`); training asks the other two. The held-out answers never appear as a training target (they are only
 * ever seen inside masked tool output).
 *
 * The embedded tokenizer makes every country name and every two-digit number one token, so the cold start teaches
 * token copies (depot and field from the question into the path, number from the tool output into the answer).
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { mulberry32 } from 'agentrl/internal';
import type { Demonstration, DemonstrationCall, Example, McpStdioServer } from 'agentrl';

export const DEPOTS = [
  'Peru',
  'Chile',
  'Ghana',
  'Japan',
  'Spain',
  'France',
  'Kenya',
  'Nepal',
  'Egypt',
  'Iraq',
  'Cuba',
  'Mali',
  'Oman',
  'Qatar',
  'Yemen',
  'Gabon',
] as const;
export const FIELDS = ['code', 'total', 'count'] as const;
export type Field = (typeof FIELDS)[number];

/** Depots with one field held out (the first this many of {@link DEPOTS}: field `i mod 3` of depot `i`). */
export const HELD_OUT_DEPOTS = 16;

/** The stored value of every (depot, field): a two-digit number drawn once from a fixed seed. */
export function depotValues(): Map<string, Record<Field, string>> {
  const r = mulberry32(2026);
  const draw = () => String(10 + Math.floor(r() * 90));
  return new Map(DEPOTS.map((d) => [d, { code: draw(), total: draw(), count: draw() }]));
}

/** One question per (depot, field), split so that no held-out (depot, field) pair is asked in training. */
export function questions(split: 'train' | 'test'): Example[] {
  const values = depotValues();
  return DEPOTS.flatMap((depot, i) =>
    FIELDS.map((field, k) => ({ depot, field, heldOut: i < HELD_OUT_DEPOTS && k === i % FIELDS.length }))
      .filter((q) => q.heldOut === (split === 'test'))
      .map(({ depot, field }) => ({
        id: `${depot}-${field}`,
        question: `What is the ${field} of ${depot}?`,
        answer: values.get(depot)![field],
        meta: { depot, field },
      })),
  );
}

/**
 * Writes every depot's record as a file, `<dir>/<Depot>/<field>` holding the number, into a fresh temp folder and
 * returns the official filesystem server (`@modelcontextprotocol/server-filesystem`) over stdio, from node_modules,
 * allowed that folder only. The policy reads a record with `read_text_file({ path: "Peru/code" })` (relative paths
 * resolve inside the allowed folder).
 */
export function recordsServer(): McpStdioServer & { readonly dir: string } {
  const dir = mkdtempSync(join(tmpdir(), 'agentrl-mcp-agent-'));
  for (const [depot, v] of depotValues()) {
    mkdirSync(join(dir, depot));
    for (const f of FIELDS) writeFileSync(join(dir, depot, f), v[f]);
  }
  return {
    dir,
    command: process.execPath,
    args: [fileURLToPath(new URL('../../node_modules/@modelcontextprotocol/server-filesystem/dist/index.js', import.meta.url)), dir],
  };
}

/** Model shape of the embedded transformer (a demonstration is ≈ 140 tokens). */
export const MODEL = { layers: 2, dModel: 64, heads: 4, contextTokens: 160 } as const;

/**
 * Rollout budgets of both paths (tokens). `maxTurnTokens` must hold the whole demonstrated call (≈ 40 tokens with its
 * stop token): a smaller budget cuts every sampled call before its end, so every call is invalid and RL sees no reward.
 */
export const BUDGETS = { maxTurns: 2, maxToolCalls: 1, maxTurnTokens: 48, maxToolResponseTokens: 16, maxTrajectoryTokens: MODEL.contextTokens } as const;

/** The only tool the policy is offered. */
export const TOOL = 'read_text_file';

/** Short on purpose: every token costs context on the tiny embedded model (the tool list and the call format come from the chat template). */
export const SYSTEM_PROMPT = 'Read the record, then answer.';

/** The tool call a good policy makes for `ex`, as data (the chat template renders it in the family's call syntax). */
export function lookupCall(ex: Example): DemonstrationCall {
  return { name: TOOL, arguments: { path: `${String(ex.meta?.['depot'])}/${String(ex.meta?.['field'])}` } };
}

/**
 * Cold-start demonstrations: per question and pass, a share `1 - guessShare` reads the record and copies the number
 * from the tool result; the rest answer at once with a guessed number (wrong: the numbers are random), so RL has
 * something to fix. The tool result comes from the real server (`coldStart` renders it) — except with
 * `otherRecords`, where passes after the first show the record with another random number (the observation is fixed
 * in the demonstration, as if the record had changed since) and the answer copies that number. Copying what the tool
 * returned is then the only rule that fits every demonstration; remembering a training question's answer does not,
 * and a held-out answer is never a target.
 */
export function demonstrations(
  examples: readonly Example[],
  opts: { passes: number; guessShare: number; seed: number; otherRecords?: boolean },
): Demonstration[] {
  const r = mulberry32(opts.seed);
  const out: Demonstration[] = [];
  for (let p = 0; p < opts.passes; p++) {
    const real = p === 0 || !opts.otherRecords;
    for (const example of examples) {
      const shown = real ? example.answer : String(10 + Math.floor(r() * 90));
      const guess = String(10 + ((Number(shown) - 10 + 1 + Math.floor(r() * 89)) % 90));
      const lookup = real ? { call: lookupCall(example) } : { call: lookupCall(example), observation: [{ role: 'tool' as const, name: TOOL, content: shown }] };
      out.push({ example, turns: r() < opts.guessShare ? [{ answer: `<answer>${guess}</answer>` }] : [lookup, { answer: `<answer>${shown}</answer>` }] });
    }
  }
  return out;
}
