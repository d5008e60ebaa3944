import { localBackend } from './src/backend/index.js';
const be = localBackend({ seed: 1 });
const B = 16, T = 256;
let s = 1;
const rnd = () => ((s = (s * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
const datums = Array.from({ length: B }, () => {
  const toks = Array.from({ length: T + 1 }, () => Math.floor(rnd() * 256));
  return { modelInput: toks.slice(0, T), targetTokens: toks.slice(1), logprobs: Array(T).fill(-5.5), advantages: Array(T).fill(1), mask: Array(T).fill(1) };
});
const times: number[] = [];
for (let i = 0; i < 50; i++) {
  const t0 = performance.now();
  await be.forwardBackward(datums, { kind: 'ppo', clipLow: 0.8, clipHigh: 1.28 });
  await be.optimStep({ learningRate: 1e-4 });
  times.push(performance.now() - t0);
  const sampler = await be.saveWeightsForSampler();
  await Promise.all([0, 1, 2, 3].map((k) => sampler.sample([1, 2, 3, 4 + k], { maxTokens: 16, numSamples: 2 })));
  (globalThis as { gc?: () => void }).gc?.();
  if (i % 10 === 0 || i === 49) console.log(i, 'rss MB', (process.memoryUsage().rss / 1e6).toFixed(0), 'step ms', times.at(-1)!.toFixed(0));
}
times.sort((a, b) => a - b);
console.log('median step ms', times[25]!.toFixed(0));
