/**
 * Cold-start SFT demonstrations for the SQL agent, deliberately imperfect (as in a cold start) so RL has something
 * to fix: most run the query first and then give it as the final ```sql block, some answer straight away with a
 * guessed table name (usually wrong), some run a query on a wrong table, read the error and fix it (or not), some
 * emit a malformed tool call. Observations come from the real environment (`env.step` on the real database), and
 * every turn is rendered with `renderPrompt` + `nextPrompt` exactly as a rollout renders it.
 */
import { demonstrationDatum, type Datum, type Environment, type Example, type Renderer } from 'agentrl';
import { mulberry32 } from 'agentrl/internal';

export type DemoStyle = 'query' | 'guess' | 'error-fix' | 'error-guess' | 'malformed';

/** A native `execute_sql` call, formatted as the chat template renders one. */
const call = (sql: string) => `<tool_call>\n{"name": "execute_sql", "arguments": {"sql": ${JSON.stringify(sql)}}}\n</tool_call>`;
const final = (sql: string) => '```sql\n' + sql + '\n```';

/** Picks a style with the cold-start mix: 50% query, 25% guess, 10% error → fix, 5% error → guess, 10% malformed. */
export function pickStyle(r: () => number): DemoStyle {
  const x = r();
  if (x < 0.5) return 'query';
  if (x < 0.75) return 'guess';
  if (x < 0.85) return 'error-fix';
  if (x < 0.9) return 'error-guess';
  return 'malformed';
}

/** The gold SQL with a plausible wrong table name (`countries`), as a model guessing the schema writes it. */
export function wrongTable(sql: string): string {
  return sql.replace(' FROM country ', ' FROM countries ');
}

/** The assistant texts of one demonstration (tool turns are answered by the environment). A guess is right 30% of the time. */
export function demoTexts(ex: Example, style: DemoStyle, r: () => number): string[] {
  const gold = ex.answer;
  switch (style) {
    case 'query':
      return [call(gold), final(gold)];
    case 'guess':
      return [final(r() < 0.3 ? gold : wrongTable(gold))];
    case 'error-fix':
      return [call(wrongTable(gold)), final(gold)];
    case 'error-guess':
      return [call(wrongTable(gold)), final(wrongTable(gold))];
    case 'malformed':
      return [`<tool_call>\n{"name": "execute_sql", "arguments": {"sql": ${JSON.stringify(gold)}}\n</tool_call>`];
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
  const styles: Record<DemoStyle, number> = { query: 0, guess: 0, 'error-fix': 0, 'error-guess': 0, malformed: 0 };
  const datums: Datum[] = [];
  let dropped = 0;
  for (let e = 0; e < opts.epochs; e++) {
    for (const ex of examples) {
      const style = pickStyle(r);
      const d = await demonstrationDatum(renderer, env, { example: ex, turns: demoTexts(ex, style, r).map((text) => ({ text })) }, { maxToolResponseTokens: opts.maxToolResponseTokens });
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
