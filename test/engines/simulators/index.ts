/**
 * One simulator per Tinker-API engine, for tests: `startEngine('skyrl-jax', { model })` → a loopback server whose
 * base URL goes to `tinkerBackend({ engine: 'skyrl-jax', baseUrl })`. See README.md for what each reproduces.
 */
import { openRl } from './open-rl.js';
import { skyrlJax } from './skyrl-jax.js';
import { skyrlTrain } from './skyrl-train.js';
import { startSimulator, type EngineSimulator, type EngineSpec, type SimEngine, type SimulatorOptions } from './simulator.js';
import { tinker } from './tinker.js';
import { tuft } from './tuft.js';

export { SIMULATED_ENGINES, type EngineSimulator, type SimEngine, type SimulatorOptions } from './simulator.js';

const SPECS: Record<SimEngine, EngineSpec> = {
  tinker,
  'skyrl-jax': skyrlJax,
  'skyrl-fsdp': skyrlTrain('fsdp'),
  'skyrl-megatron': skyrlTrain('megatron'),
  tuft,
  'open-rl': openRl,
};

/** Starts the simulator of `engine` on 127.0.0.1; `close()` stops it. */
export function startEngine(engine: SimEngine, options: SimulatorOptions): Promise<EngineSimulator> {
  return startSimulator(engine, SPECS[engine], options);
}
