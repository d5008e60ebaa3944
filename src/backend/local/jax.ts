// Node 20 lacks Iterator helpers that jax-js uses (`matchAll(...).map`): polyfill BEFORE importing jax-js.
import 'core-js/actual/iterator/index.js';
import { init } from '@jax-js/jax';

export { numpy as np, nn, lax, tree, jit, valueAndGrad } from '@jax-js/jax';
export type { Array as JaxArray } from '@jax-js/jax';

let ready: Promise<void> | undefined;

/**
 * Starts the jax-js wasm device once per process (`init('wasm')`; plain `init()` reads
 * `navigator.gpu`, which throws on Node 20). Safe to call many times.
 */
export function ensureJax(): Promise<void> {
  ready ??= init('wasm').then(() => undefined);
  return ready;
}
