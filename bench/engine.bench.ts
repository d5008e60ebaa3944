// Embedded engine benchmark: train-step time (16×256), sampling tok/s (KV cache, continuous batching)
// for two model sizes, and achieved GFLOP/s vs a measured jax-js matmul peak on this machine.
// Run: npm run bench:engine   (single-threaded wasm; keep other processes quiet for stable numbers)
import { ensureJax, jit, np, type JaxArray } from '../src/backend/local/jax.js';
import { localBackend, type LocalBackendOptions } from '../src/backend/index.js';
import type { Datum } from '../src/types/datum.js';

const REPS = Number(process.env.REPS ?? 3);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Wall and CPU milliseconds of `fn` (median of REPS after one warm-up). */
async function time(fn: () => Promise<unknown>, reps = REPS): Promise<{ wallMs: number; cpuMs: number }> {
  await fn();
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < reps; i++) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    await fn();
    wall.push(performance.now() - t0);
    const c = process.cpuUsage(c0);
    cpu.push((c.user + c.system) / 1000);
  }
  return { wallMs: median(wall), cpuMs: median(cpu) };
}

/** Training FLOPs per token: 3 × forward, forward = L(24d² + 4Td) + 2Vd (full, unmasked attention). */
function trainFlopsPerToken(L: number, d: number, T: number, V: number): number {
  return 3 * (L * (24 * d * d + 4 * T * d) + 2 * V * d);
}

/** Best achieved GFLOP/s of a jitted 2D matmul (result reduced in-kernel so read-back is one float). */
async function matmulPeak(): Promise<number> {
  await ensureJax();
  const f = jit((a: JaxArray, b: JaxArray) => np.matmul(a, b).sum());
  let best = 0;
  for (const [M, K, N] of [
    [4096, 128, 512],
    [4096, 256, 1024],
    [2048, 1024, 256],
  ] as const) {
    const a = np.ones([M, K]);
    const b = np.ones([K, N]);
    const t = await time(async () => {
      f(a.ref, b.ref).dataSync();
    }, 5);
    a.dispose();
    b.dispose();
    const g = (2 * M * K * N) / (Math.min(t.wallMs, t.cpuMs) / 1000) / 1e9;
    console.log(`  matmul [${M}×${K}]·[${K}×${N}]: ${g.toFixed(1)} GFLOP/s`);
    best = Math.max(best, g);
  }
  return best;
}

function randomBatch(B: number, T: number, seed: number): Datum[] {
  let s = seed;
  const rnd = () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 4294967296;
  return Array.from({ length: B }, () => {
    const toks = Array.from({ length: T + 1 }, () => Math.floor(rnd() * 256));
    return { modelInput: toks.slice(0, T), targetTokens: toks.slice(1), logprobs: Array(T).fill(-5.5), advantages: Array(T).fill(1), mask: Array(T).fill(1) };
  });
}

async function benchModel(name: string, opts: LocalBackendOptions, peak: number, full: boolean) {
  const reps = full ? REPS : 2;
  const be = localBackend({ ...opts, contextTokens: 512, seed: 1 });
  const B = 16;
  const T = 256;
  const data = randomBatch(B, T, 3);
  const sft = await time(async () => {
    await be.forwardBackward(data, { kind: 'cross_entropy' });
    await be.optimStep({ learningRate: 1e-4 });
  }, reps);
  const ppo = full
    ? await time(async () => {
        await be.forwardBackward(data, { kind: 'ppo', clipLow: 0.8, clipHigh: 1.28 });
        await be.optimStep({ learningRate: 1e-4 });
      }, reps)
    : undefined;
  const flops = trainFlopsPerToken(opts.layers!, opts.dModel!, T, 265) * B * T;
  const gflops = flops / (Math.min(sft.wallMs, sft.cpuMs) / 1000) / 1e9;
  console.log(
    `${name}: train 16×256 (fwd+bwd+Adam)  SFT ${sft.wallMs.toFixed(0)} ms wall (${sft.cpuMs.toFixed(0)} ms CPU)` +
      (ppo ? `, PPO ${ppo.wallMs.toFixed(0)} ms wall (${ppo.cpuMs.toFixed(0)} ms CPU)` : ''),
  );
  console.log(`${name}: ${(flops / 1e9).toFixed(1)} GFLOP/step → ${gflops.toFixed(1)} GFLOP/s = ${((100 * gflops) / peak).toFixed(0)}% of matmul peak`);

  const sampler = await be.saveWeightsForSampler();
  const prompt = Array.from({ length: 32 }, (_, i) => 97 + (i % 26));
  const N = 16;
  const NEW = full ? 200 : 100;
  const params = { maxTokens: NEW, temperature: 1, stop: [] as number[] };
  const one = await time(() => sampler.sample(prompt, { ...params, numSamples: N, seed: 1 }), reps);
  console.log(
    `${name}: sample 1 call × ${N} samples × ${NEW} tok: ${one.wallMs.toFixed(0)} ms → ${((N * NEW) / (one.wallMs / 1000)).toFixed(0)} tok/s wall (${((N * NEW) / (one.cpuMs / 1000)).toFixed(0)} tok/s CPU)`,
  );
  if (full) {
    const conc = await time(() => Promise.all(Array.from({ length: N }, (_, i) => sampler.sample(prompt, { ...params, seed: i }))), reps);
    console.log(
      `${name}: sample ${N} concurrent calls × 1 sample (continuous batching): ${((N * NEW) / (conc.wallMs / 1000)).toFixed(0)} tok/s wall (${((N * NEW) / (conc.cpuMs / 1000)).toFixed(0)} tok/s CPU)`,
    );
    const seq = await time(async () => {
      for (let i = 0; i < 4; i++) await sampler.sample(prompt, { ...params, seed: i });
    }, 1);
    console.log(
      `${name}: sample 4 sequential calls × 1 sample (no batching): ${((4 * NEW) / (seq.wallMs / 1000)).toFixed(0)} tok/s wall (${((4 * NEW) / (seq.cpuMs / 1000)).toFixed(0)} tok/s CPU)`,
    );
  }
  await be.close();
}

const t0 = performance.now();
const peak = await matmulPeak();
console.log(`jax-js wasm matmul peak: ${peak.toFixed(1)} GFLOP/s (1 thread; GFLOP/s below use min(wall, CPU) time)`);
await benchModel('A L2 d128 H4', { layers: 2, dModel: 128, heads: 4 }, peak, true);
await benchModel('B L4 d256 H4', { layers: 4, dModel: 256, heads: 4 }, peak, false);
console.log(`total ${((performance.now() - t0) / 1000).toFixed(0)} s`);
