// throwaway: absolute HTTP overhead per step with a small model (same 64 x T datums)
import { localBackend } from '../src/backend/index.js';
import { tinkerBackend } from '../src/backend/tinker/index.js';
import { createServeApp } from '../src/serve/tinker/index.js';
const T = Number(process.env.T ?? 512);
const MODEL = { layers: 1, dModel: Number(process.env.D ?? 32), heads: 2, contextTokens: T, seed: 0 };
const DATUMS = 64;
function batch(seed: number) {
  let s = seed;
  const rnd = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 4294967296);
  return Array.from({ length: DATUMS }, () => {
    const toks = Array.from({ length: T + 1 }, () => Math.floor(rnd() * 2000));
    const mask = Array.from({ length: T }, (_, t) => (t >= 64 ? 1 : 0));
    return { modelInput: toks.slice(0, T), targetTokens: toks.slice(1), logprobs: mask.map((m) => (m ? -7.5 + rnd() : 0)), advantages: mask.map((m) => (m ? rnd() * 2 - 1 : 0)), mask };
  });
}
const serve = createServeApp({ port: 0, model: MODEL, sessionTimeoutMs: 3600_000 });
const url = await serve.listen();
const local = localBackend(MODEL);
const remote = tinkerBackend({ baseUrl: url, baseModel: 'agentrl/local', renderer: new URL('../assets/local-model', import.meta.url).pathname, maxContextTokens: T });
const loss = { kind: 'ppo', clipLow: 0.8, clipHigh: 1.28, aggregation: 'token-mean' } as const;
const data = batch(1);
async function step(b: any) {
  const c0 = process.cpuUsage(); const t0 = performance.now();
  await b.forwardBackward(data, loss);
  const t1 = performance.now();
  await b.optimStep({ learningRate: 1e-4, beta1: 0.9, beta2: 0.99, eps: 1e-8, gradClipNorm: 1 });
  const t2 = performance.now();
  await b.saveWeightsForSampler();
  const t3 = performance.now();
  const c = process.cpuUsage(c0);
  return { fb: t1 - t0, opt: t2 - t1, save: t3 - t2, wall: t3 - t0, cpu: (c.user + c.system) / 1000 };
}
for (let i = 0; i < Number(process.env.N ?? 6); i++) {
  const l = await step(local); const r = await step(remote);
  const f = (x: any) => `fb ${x.fb.toFixed(0)} opt ${x.opt.toFixed(0)} save ${x.save.toFixed(0)} wall ${x.wall.toFixed(0)} cpu ${x.cpu.toFixed(0)}`;
  console.log(`local ${f(l)} | remote ${f(r)}`);
}
await remote.close(); await local.close(); await serve.close();
