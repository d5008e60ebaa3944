/** Settings the pipeline examples (retool, search-agent, sql-agent) share; each example's config.ts re-exports them. */
import { fileURLToPath } from 'node:url';

/**
 * Model shape of the embedded transformer the examples train (the same context in SFT, RL and eval: one compiled
 * shape set). The shipped SFT checkpoints are of this shape.
 */
export const MODEL = { layers: 2, dModel: 128, heads: 4, contextTokens: 192 } as const;

/** Sampling settings for RL rollouts and for both evaluations (kept identical across compared runs). */
export const SAMPLING = { temperature: 1, topP: 1 } as const;

/**
 * The paths every pipeline example has, for the example folder holding `moduleUrl` (its config.ts): `here(p)`
 * resolves `p` against that folder, `sftCheckpoint` is its shipped cold-start checkpoint (`checkpoints/sft`) and
 * `runs` its run folder (`runs/<name>` at the repository root).
 */
export function examplePaths(moduleUrl: string, name: string) {
  const here = (p: string) => fileURLToPath(new URL(p, moduleUrl));
  return { here, sftCheckpoint: here('./checkpoints/sft'), runs: here(`../../runs/${name}`) };
}
