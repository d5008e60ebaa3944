/**
 * Cold-start SFT demonstrations for the SQL agent, deliberately imperfect (as in a cold start) so RL has something
 * to fix: most run the query first and then give it as the final ```sql block, some answer straight away with a
 * guessed table name (usually wrong), some run a query on a wrong table, read the error and fix it (or not), some
 * emit a malformed tool call. The turns are data (`{ call }`, `{ answer }`), rendered in the model family's own call
 * syntax; only the malformed call is raw text. Observations come from the real environment (`env.step` on the real
 * database), and every turn is rendered with `renderPrompt` + `nextPrompt` exactly as a rollout renders it.
 */
import type { DemonstrationTurn, Example } from 'agentrl';
import { mixDemoBuilder, pickMixStyle, type StyleMix } from '../shared/demo-styles.js';

export type DemoStyle = 'query' | 'guess' | 'error-fix' | 'error-guess' | 'malformed';
const STYLES: StyleMix<DemoStyle> = ['query', 'guess', 'error-fix', 'error-guess', 'malformed'];

/** An `execute_sql` call, as data. */
const call = (sql: string): DemonstrationTurn => ({ call: { name: 'execute_sql', arguments: { sql } } });
/** The final answer: the query in a ```sql block. */
const final = (sql: string): DemonstrationTurn => ({ answer: '```sql\n' + sql + '\n```' });

/** Picks a style with the cold-start mix: 50% query, 25% guess, 10% error → fix, 5% error → guess, 10% malformed. */
export function pickStyle(r: () => number): DemoStyle {
  return pickMixStyle(r, STYLES);
}

/** The gold SQL with a plausible wrong table name (`countries`), as a model guessing the schema writes it. */
export function wrongTable(sql: string): string {
  return sql.replace(' FROM country ', ' FROM countries ');
}

/**
 * The assistant turns of one demonstration (tool turns are answered by the environment). A guess is right 30% of the
 * time. The malformed call is raw text (the call as the template writes it, arguments compact, with its closing brace
 * missing): a malformed call cannot be written as data.
 */
export function demoTurns(ex: Example, style: DemoStyle, r: () => number): DemonstrationTurn[] {
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
      return [{ text: `<tool_call>\n{"name": "execute_sql", "arguments": {"sql":${JSON.stringify(gold)}}\n</tool_call>` }];
  }
}

/**
 * Demonstration datums: `epochs` passes over `examples`, each example with a freshly drawn style per pass.
 * Demonstrations longer than `maxTokens` (tokens) are left out rather than cut. Returns the datums, the count kept
 * per style, and how many were left out.
 */
export const buildDemoDatums = mixDemoBuilder(STYLES, () => demoTurns);
