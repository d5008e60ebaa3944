import { localBackend } from './src/backend/index.js';
for (const C of [128, 512]) {
  const be = localBackend({ seed: 1, contextTokens: C });
  const s = await be.saveWeightsForSampler();
  const prompt = [1, 2, 3, 4, 5, 6, 7, 8];
  for (const n of [1, 16]) {
    await s.sample(prompt, { numSamples: n, maxTokens: 100, stop: [] });
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    await s.sample(prompt, { numSamples: n, maxTokens: 100, stop: [] });
    const c = process.cpuUsage(c0);
    console.log(`C=${C} rows=${n}: ${((performance.now() - t0) / 100).toFixed(2)} ms/step wall, ${((c.user + c.system) / 1000 / 100).toFixed(2)} ms/step CPU`);
  }
}
