/**
 * The cold-start mix the pipeline examples' demonstrations share (retool, search-agent, sql-agent): deliberately
 * imperfect, as in a cold start, so RL has something to fix. Five styles, in this order: the right way (50%),
 * answering at once without the tool (25%), a mistake then a recovery (10%), a mistake left standing (5%), a
 * malformed tool call (10%).
 */
import { demonstrationDatum, type Datum, type DemonstrationTurn, type Environment, type Example, type Renderer } from 'agentrl';
import { mulberry32 } from 'agentrl/internal';

/** An example's five styles, in the order of the mix (right way, answer at once, recovery, mistake, malformed). */
export type StyleMix<S extends string> = readonly [S, S, S, S, S];

/** Draws one style of `styles` with the cold-start mix (one draw of `r`). */
export function pickMixStyle<S extends string>(r: () => number, styles: StyleMix<S>): S {
  const x = r();
  if (x < 0.5) return styles[0];
  if (x < 0.75) return styles[1];
  if (x < 0.85) return styles[2];
  if (x < 0.9) return styles[3];
  return styles[4];
}

/** Settings of {@link buildMixDemoDatums}. */
export interface MixDemoOptions {
  readonly seed: number;
  /** Passes over the examples, each example with a freshly drawn style per pass. */
  readonly epochs: number;
  /** Tool responses are cut to this many tokens, as in a rollout. */
  readonly maxToolResponseTokens: number;
  /** Demonstrations longer than this (tokens) are left out rather than cut. */
  readonly maxTokens?: number;
}

/**
 * Demonstration datums for a tool agent whose observations come from the real environment (`env.step`): for each
 * pass and example, a style is drawn, `turns` gives the assistant turns (drawing further from `r` where the style
 * needs it) — as data (`{ call }`, `{ answer }`), or raw text where the style is a malformed call — and they are
 * rendered by the model family's renderer as a rollout renders them. Returns the datums, the count kept per style (in
 * mix order), and how many were left out as longer than `maxTokens`.
 */
export async function buildMixDemoDatums<S extends string>(
  renderer: Renderer,
  env: Environment,
  examples: readonly Example[],
  styleMix: StyleMix<S>,
  turns: (ex: Example, style: S, r: () => number) => DemonstrationTurn[],
  opts: MixDemoOptions,
): Promise<{ datums: Datum[]; styles: Record<S, number>; dropped: number }> {
  const r = mulberry32(opts.seed);
  const styles = Object.fromEntries(styleMix.map((s) => [s, 0])) as Record<S, number>;
  const datums: Datum[] = [];
  let dropped = 0;
  for (let e = 0; e < opts.epochs; e++) {
    for (const ex of examples) {
      const style = pickMixStyle(r, styleMix);
      const d = await demonstrationDatum(renderer, env, { example: ex, turns: turns(ex, style, r) }, { maxToolResponseTokens: opts.maxToolResponseTokens });
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

/** An example's `buildDemoDatums(renderer, env, examples, opts)`. */
export type MixDemoBuilder<S extends string> = (
  renderer: Renderer,
  env: Environment,
  examples: readonly Example[],
  opts: MixDemoOptions,
) => Promise<{ datums: Datum[]; styles: Record<S, number>; dropped: number }>;

/**
 * The `buildDemoDatums` of an example with styles `styleMix`: {@link buildMixDemoDatums} with the turns that
 * `turnsFor(examples)` gives (where they depend on the whole set, e.g. a wrong answer drawn from the other examples).
 */
export function mixDemoBuilder<S extends string>(
  styleMix: StyleMix<S>,
  turnsFor: (examples: readonly Example[]) => (ex: Example, style: S, r: () => number) => DemonstrationTurn[],
): MixDemoBuilder<S> {
  return (renderer, env, examples, opts) => buildMixDemoDatums(renderer, env, examples, styleMix, turnsFor(examples), opts);
}
