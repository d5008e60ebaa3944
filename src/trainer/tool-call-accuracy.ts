import type { TrainingBackend } from '../backend/types.js';
import type { Environment } from '../env/types.js';
import type { Example } from '../types/example.js';
import type { Demonstration } from '../rollout/demonstration-turn.js';
import { canonicalJson as canonical, renderDemonstration } from '../rollout/demonstration.js';
import { checkDemonstration } from '../rollout/demonstration-turn.js';
import { parseWithEnv } from '../rollout/parse-with-env.js';
import { checkOptions, optionKeys } from '../util/check-options.js';

const TOOL_CALL_ACCURACY_OPTIONS = optionKeys<Parameters<typeof toolCallAccuracy>[3]>({ maxToolResponseTokens: true, maxTurnTokens: true });

/** One demonstrated tool call the model did not reproduce (see {@link ToolCallAccuracy}). */
export interface ToolCallMiss {
  /** Id of the demonstration's example. */
  readonly exampleId: string;
  /** 0-based index of the demonstrated turn. */
  readonly turn: number;
  /** The demonstrated call, `name(arguments JSON)`. */
  readonly expected: string;
  /** What the model wrote at that point (its call as `name(arguments JSON)`, or its raw text when it made no call). */
  readonly got: string;
}

/**
 * How well a model reproduces demonstrated tool calls it was not trained on: for every tool-call turn of the
 * held-out demonstrations, the model writes that turn greedily (temperature 0) from the demonstration's exact prompt
 * (earlier turns and their tool results included) and the call it writes is compared with the demonstrated one.
 */
export interface ToolCallAccuracy {
  /** Demonstrated tool-call turns checked. */
  readonly calls: number;
  /** Share (0..1) where the model called the same tool. */
  readonly toolNameAccuracy: number;
  /** Share (0..1) where the model called the same tool with exactly the same arguments (key order ignored). */
  readonly argumentAccuracy: number;
  /** Up to 5 misses, for the log. */
  readonly misses: readonly ToolCallMiss[];
  /**
   * Misses by kind: `length` — the turn ran out of tokens before the call was finished (the turn budget is too small
   * for it); `format` — no call, or a malformed one (the call syntax is not learned yet); `tool` — another tool;
   * `arguments` — the right tool with other arguments.
   */
  readonly failures: Readonly<Record<ToolCallFailure, number>>;
}

/** Kinds of {@link ToolCallAccuracy.failures}. */
export type ToolCallFailure = 'length' | 'format' | 'tool' | 'arguments';

/**
 * Measures {@link ToolCallAccuracy} of the backend's current weights on held-out demonstrations (those of them that
 * call a tool; a demonstration without a tool call adds nothing). Used by `coldStart({ heldOut })`; callable on its
 * own after any training.
 * @param opts.maxTurnTokens - tokens the model may write per checked turn. @default 2 × the demonstrated turn + 8
 * @throws DemonstrationError when a held-out demonstration is malformed (as in `coldStart`).
 */
export async function toolCallAccuracy<E extends Example>(
  backend: TrainingBackend,
  env: Environment<E>,
  heldOut: readonly Demonstration<E>[],
  opts: { readonly maxToolResponseTokens: number; readonly maxTurnTokens?: number },
): Promise<ToolCallAccuracy> {
  checkOptions('toolCallAccuracy options', TOOL_CALL_ACCURACY_OPTIONS, opts, {
    signature: 'toolCallAccuracy(backend, env, heldOut, { maxToolResponseTokens, maxTurnTokens? })',
  });
  const renderer = await backend.renderer();
  const sampler = await backend.saveWeightsForSampler();
  const e = env as Environment;
  let calls = 0;
  let names = 0;
  let exact = 0;
  const misses: ToolCallMiss[] = [];
  const failures: Record<ToolCallFailure, number> = { length: 0, format: 0, tool: 0, arguments: 0 };
  for (const [i, raw] of heldOut.entries()) {
    const demo = checkDemonstration(raw, i);
    const rendered = await renderDemonstration(renderer, e, raw, { maxToolResponseTokens: opts.maxToolResponseTokens, index: i });
    for (const [k, start] of rendered.turnStarts.entries()) {
      const want = parseWithEnv(renderer, e, rendered.texts[k]!);
      if (want.kind !== 'tool') continue;
      calls++;
      const [seq] = await sampler.sample(rendered.tokens.slice(0, start), {
        maxTokens: opts.maxTurnTokens ?? 2 * rendered.turnTokens[k]! + 8,
        temperature: 0,
        stop: renderer.stopTokens,
        seed: 0,
      });
      const got = parseWithEnv(renderer, e, renderer.decode((seq?.tokens ?? []).filter((t) => !renderer.stopTokens.includes(t))));
      const expected = `${want.call.function.name}(${canonical(want.call.function.arguments)})`;
      const sameName = got.kind === 'tool' && got.call.function.name === want.call.function.name;
      const sameArgs = sameName && got.kind === 'tool' && canonical(got.call.function.arguments) === canonical(want.call.function.arguments);
      if (sameName) names++;
      if (sameArgs) exact++;
      else {
        failures[seq?.stopReason === 'length' ? 'length' : got.kind !== 'tool' ? 'format' : sameName ? 'arguments' : 'tool']++;
        if (misses.length < 5) {
          misses.push({
            exampleId: demo.example.id,
            turn: k,
            expected,
            got: got.kind === 'tool' ? `${got.call.function.name}(${canonical(got.call.function.arguments)})` : JSON.stringify(got.raw.slice(0, 80)),
          });
        }
      }
    }
  }
  return { calls, toolNameAccuracy: calls ? names / calls : 0, argumentAccuracy: calls ? exact / calls : 0, misses, failures };
}
