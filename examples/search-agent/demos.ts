/**
 * Cold-start SFT demonstrations for the search agent, deliberately imperfect (as in a cold start) so RL has
 * something to fix: most search with the right query and copy the answer from the passage, some answer from
 * memory (usually wrong), some search with a useless query (then retry, or answer from the wrong passage), some
 * emit a malformed tool call. The turns are data (`{ call }`, `{ answer }`), rendered in the model family's own call
 * syntax; only the malformed call is raw text. Observations come from the real environment (`env.step` on the real
 * retriever), and every turn is rendered with `renderPrompt` + `nextPrompt` exactly as a rollout renders it.
 */
import type { DemonstrationTurn, Example } from 'agentrl';
import { mixDemoBuilder, pickMixStyle, type StyleMix } from '../shared/demo-styles.js';

export type DemoStyle = 'search' | 'guess' | 'bad-query-retry' | 'bad-query-guess' | 'malformed';
const STYLES: StyleMix<DemoStyle> = ['search', 'guess', 'bad-query-retry', 'bad-query-guess', 'malformed'];

/** A `search` call, as data. */
const call = (query: string): DemonstrationTurn => ({ call: { name: 'search', arguments: { query } } });
/** The final answer in the `<answer>` tags the reward reads. */
const answer = (a: string): DemonstrationTurn => ({ answer: `<answer>${a}</answer>` });

/** Picks a style with the cold-start mix: 50% search, 25% guess, 10% bad query → retry, 5% bad query → guess, 10% malformed. */
export function pickStyle(r: () => number): DemoStyle {
  return pickMixStyle(r, STYLES);
}

/** The query a good search uses: the question's `<fact> of <country>` span, copied. */
export function goodQuery(ex: Example): string {
  return `${String(ex.meta?.['fact'])} of ${String(ex.meta?.['country'])}`;
}

/**
 * The assistant turns of one demonstration (tool turns are answered by the environment).
 * `wrongAnswer` is a plausible wrong answer (the same fact of another country); a guess is right 30% of the time.
 * The malformed call is raw text (the call as the template writes it, arguments compact, with its closing brace
 * missing): a malformed call cannot be written as data.
 */
export function demoTurns(ex: Example, style: DemoStyle, wrongAnswer: string, r: () => number): DemonstrationTurn[] {
  const fact = String(ex.meta?.['fact']);
  switch (style) {
    case 'search':
      return [call(goodQuery(ex)), answer(ex.answer)];
    case 'guess':
      return [answer(r() < 0.3 ? ex.answer : wrongAnswer)];
    case 'bad-query-retry':
      return [call(fact), call(goodQuery(ex)), answer(ex.answer)];
    case 'bad-query-guess':
      return [call(fact), answer(wrongAnswer)];
    case 'malformed':
      return [{ text: `<tool_call>\n{"name": "search", "arguments": {"query":${JSON.stringify(goodQuery(ex))}}\n</tool_call>` }];
  }
}

/**
 * Demonstration datums: `epochs` passes over `examples`, each example with a freshly drawn style per pass (and, for
 * a wrong answer, a draw among the same fact's answers for the other examples). Demonstrations longer than
 * `maxTokens` (tokens) are left out rather than cut. Returns the datums, the count kept per style, and how many were
 * left out.
 */
export const buildDemoDatums = mixDemoBuilder(STYLES, (examples) => {
  const byFact = new Map<string, string[]>();
  for (const ex of examples) byFact.set(String(ex.meta?.['fact']), [...(byFact.get(String(ex.meta?.['fact'])) ?? []), ex.answer]);
  return (ex, style, r) => {
    const pool = (byFact.get(String(ex.meta?.['fact'])) ?? [ex.answer]).filter((a) => a !== ex.answer);
    const wrong = pool[Math.floor(r() * pool.length)] ?? 'unknown';
    return demoTurns(ex, style, wrong, r);
  };
});
