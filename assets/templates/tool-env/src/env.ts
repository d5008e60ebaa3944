/**
 * The task and its environment. Replace them with yours: the tool (`defineTool`: a zod schema the model is shown and
 * its arguments are checked against), the environment that offers it, and the reward.
 *
 * Task: "What does a cup of tea cost in Peru today?" Prices change every day (each example is a day), so only the
 * `price` tool knows the answer: the model has to call it with the right country and copy the result.
 */
import { z } from 'zod';
import { defineTool, exactMatch, toolEnvironment, type Example, type Reward, type ToolContext } from 'agentrl';

/** Countries the tool knows. Each is ONE token of the embedded model's tokenizer, so copying it is a one-token copy. */
export const COUNTRIES = ['Peru', 'Chile', 'Japan', 'Kenya', 'Spain', 'Egypt', 'India', 'Brazil'] as const;
export type Country = (typeof COUNTRIES)[number];

/** One day's question; `meta` (typed) carries the day's prices, which the tool reads. */
export type TeaExample = Example<{ country: Country; prices: Record<Country, number> }>;

/** `price({ country })` → today's price in cents, e.g. `42`. The day's prices travel in `example.meta.prices`. */
export const price = defineTool({
  name: 'price',
  description: "Today's price of a cup of tea in a country, in cents.",
  inputSchema: z.object({ country: z.enum(COUNTRIES) }),
  execute: ({ country }, ctx: ToolContext<TeaExample>) => String(ctx.example.meta.prices[country]), // a throw becomes an `Error: …` observation
});

/** The environment: the question is the user turn; a reply without a tool call is the final answer. */
export const env = toolEnvironment<TeaExample>({
  name: 'tea-price',
  tools: [price],
  initialMessages: (example) => [{ role: 'user', content: example.question }],
});

/**
 * The reward: 0.5 for looking the price up (a tool call that ran) plus 0.5 for the exact price. The tool-use half
 * gives RL a signal while the model still learns to copy the result; `correct` (what the eval table counts) is the
 * exact match alone.
 */
export const reward: Reward<TeaExample> = (trajectory, example) => {
  const match = exactMatch()(trajectory, example);
  return { ...match, reward: (trajectory.toolCalls > 0 ? 0.5 : 0) + (match.correct ? 0.5 : 0) };
};
