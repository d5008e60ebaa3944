/**
 * Cold-start SFT demonstrations for the search agent, deliberately imperfect (as in a cold start) so RL has
 * something to fix: most search with the right query and copy the answer from the passage, some answer from
 * memory (usually wrong), some search with a useless query (then retry, or answer from the wrong passage), some
 * emit a malformed tool call. Observations come from the real environment (`env.step` on the real retriever),
 * and every turn is rendered with `renderPrompt` + `nextPrompt` exactly as a rollout renders it.
 */
import { demonstrationDatum, type Datum, type Environment, type Example, type Renderer } from 'agentrl';
import { mulberry32 } from 'agentrl/internal';

export type DemoStyle = 'search' | 'guess' | 'bad-query-retry' | 'bad-query-guess' | 'malformed';

/** A native `search` call, formatted as the chat template renders one. */
const call = (query: string) => `<tool_call>\n{"name": "search", "arguments": {"query": ${JSON.stringify(query)}}}\n</tool_call>`;
const answer = (a: string) => `<answer>${a}</answer>`;

/** Picks a style with the cold-start mix: 50% search, 25% guess, 10% bad query → retry, 5% bad query → guess, 10% malformed. */
export function pickStyle(r: () => number): DemoStyle {
  const x = r();
  if (x < 0.5) return 'search';
  if (x < 0.75) return 'guess';
  if (x < 0.85) return 'bad-query-retry';
  if (x < 0.9) return 'bad-query-guess';
  return 'malformed';
}

/** The query a good search uses: the question's `<fact> of <country>` span, copied. */
export function goodQuery(ex: Example): string {
  return `${String(ex.meta?.['fact'])} of ${String(ex.meta?.['country'])}`;
}

/**
 * The assistant texts of one demonstration (tool turns are answered by the environment).
 * `wrongAnswer` is a plausible wrong answer (the same fact of another country); a guess is right 30% of the time.
 */
export function demoTexts(ex: Example, style: DemoStyle, wrongAnswer: string, r: () => number): string[] {
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
      return [`<tool_call>\n{"name": "search", "arguments": {"query": ${JSON.stringify(goodQuery(ex))}}\n</tool_call>`];
  }
}

/**
 * Demonstration datums: `epochs` passes over `examples`, each example with a freshly drawn style per pass.
 * Demonstrations longer than `maxTokens` (tokens) are left out rather than cut. Returns the datums, the count kept
 * per style, and how many were left out.
 */
export async function buildDemoDatums(
  renderer: Renderer,
  env: Environment,
  examples: readonly Example[],
  opts: { seed: number; epochs: number; maxToolResponseTokens: number; maxTokens?: number },
): Promise<{ datums: Datum[]; styles: Record<DemoStyle, number>; dropped: number }> {
  const r = mulberry32(opts.seed);
  const styles: Record<DemoStyle, number> = { search: 0, guess: 0, 'bad-query-retry': 0, 'bad-query-guess': 0, malformed: 0 };
  const byFact = new Map<string, string[]>();
  for (const ex of examples) byFact.set(String(ex.meta?.['fact']), [...(byFact.get(String(ex.meta?.['fact'])) ?? []), ex.answer]);
  const datums: Datum[] = [];
  let dropped = 0;
  for (let e = 0; e < opts.epochs; e++) {
    for (const ex of examples) {
      const style = pickStyle(r);
      const pool = (byFact.get(String(ex.meta?.['fact'])) ?? [ex.answer]).filter((a) => a !== ex.answer);
      const wrong = pool[Math.floor(r() * pool.length)] ?? 'unknown';
      const d = await demonstrationDatum(renderer, env, { example: ex, turns: demoTexts(ex, style, wrong, r).map((text) => ({ text })) }, { maxToolResponseTokens: opts.maxToolResponseTokens });
      // A demonstration longer than the context would lose its final answer to truncation: leave it out.
      if (opts.maxTokens !== undefined && d.modelInput.length > opts.maxTokens) {
        dropped++;
        continue;
      }
      styles[style]++;
      datums.push(d);
    }
  }
  return { datums, styles, dropped };
}
