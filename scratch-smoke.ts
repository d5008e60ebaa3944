import { localBackend } from './src/backend/index.js';
const L = Number(process.env.L ?? 2), D = Number(process.env.D ?? 128);
const be = localBackend({ layers: L, dModel: D, heads: 4, contextTokens: 512, seed: 1 });
const B = 16, T = 256;
let s = 1;
const rnd = () => ((s = (s * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
const datums = Array.from({ length: B }, () => {
  const toks = Array.from({ length: T + 1 }, () => Math.floor(rnd() * 256));
  return { modelInput: toks.slice(0, T), targetTokens: toks.slice(1), logprobs: Array(T).fill(-5.5), advantages: Array(T).fill(1), mask: Array(T).fill(1) };
});
for (const kind of ['cross_entropy', 'ppo'] as const) {
  for (let i = 0; i < 4; i++) {
    const t0 = performance.now();
    const loss = kind === 'ppo' ? { kind, clipLow: 0.8, clipHigh: 1.28 } as const : { kind } as const;
    const r = await be.forwardBackward(datums, loss);
    const t1 = performance.now();
    const o = await be.optimStep({ learningRate: 1e-3 });
    const t2 = performance.now();
    console.log(kind, i, 'fb', (t1 - t0).toFixed(0), 'opt', (t2 - t1).toFixed(0), r.metrics, o.metrics);
  }
}
const sampler = await be.saveWeightsForSampler();
const prompt = Array.from({ length: 32 }, (_, i) => 97 + (i % 26));
for (let i = 0; i < 3; i++) {
  const t0 = performance.now();
  const out = await sampler.sample(prompt, { numSamples: 16, maxTokens: 200, seed: 3 });
  const t1 = performance.now();
  const ntok = out.reduce((a, o) => a + o.tokens.length, 0);
  console.log('sample', (t1 - t0).toFixed(0), 'ms', ntok, 'tok', (ntok / ((t1 - t0) / 1000)).toFixed(0), 'tok/s');
}
const out = await sampler.sample(prompt, { numSamples: 1, maxTokens: 40, seed: 5 });
const lps = await sampler.computeLogprobs([...prompt, ...out[0]!.tokens]);
let md = 0; out[0]!.tokens.forEach((_, i) => { md = Math.max(md, Math.abs(lps[prompt.length + i]! - out[0]!.logprobs[i]!)); });
console.log('max lp diff', md);
console.log('rss MB', (process.memoryUsage().rss / 1e6).toFixed(0));
