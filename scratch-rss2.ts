import { localBackend } from '/work/main/src/backend/index.js';
const be = localBackend({ seed: 1 });
const B = 8, T = 128;
const datums = Array.from({ length: B }, (_, b) => {
  const toks = Array.from({ length: T + 1 }, (_, i) => (i * 7 + b) % 256);
  return { modelInput: toks.slice(0, T), targetTokens: toks.slice(1), logprobs: Array(T).fill(-5.5), advantages: Array(T).fill(1), mask: Array(T).fill(1) };
});
for (let i = 0; i < 50; i++) {
  await be.forwardBackward(datums, { kind: 'ppo', clipLow: 0.8, clipHigh: 1.28 });
  await be.optimStep({ learningRate: 1e-4 });
  const sampler = await be.saveWeightsForSampler();
  await Promise.all([0, 1, 2, 3].map((k) => sampler.sample([1, 2, 3, 4 + k], { maxTokens: 70, numSamples: 2 })));
  (globalThis as { gc?: () => void }).gc?.();
  if (i % 10 === 0 || i === 49) console.log(i, 'rss MB', (process.memoryUsage().rss / 1e6).toFixed(0));
}
