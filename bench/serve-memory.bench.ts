// Sampler-weights lifetime benchmark: RL steps' worth of "publish weights, then sample" against `agentrl serve`
// (in this process, default embedded model, Tinker HTTP API on loopback, driven by tinkerBackend as a Trainer drives
// it: per step a small forward_backward + optim_step (so each step's weights are new buffers, as in RL), one unnamed
// save_weights_for_sampler, then a group of samples from it). Prints RSS, the V8 heap, the
// memory outside it (`external` + `arrayBuffers`, where the engine's wasm heap lives) and the sampler weight versions
// the server holds, at the start (after a warm-up) and every REPORT steps, then the growth per 1,000 steps.
// With KEEP_ALL=1 the server keeps every version (the old behaviour) for a side-by-side comparison.
// The engine runs on the server's thread here (`engineThread: 'main'`), so that process.memoryUsage() sees its memory;
// ENGINE_THREAD=worker runs it in the default worker thread instead (RSS still counts it; "outside heap" then does not).
// Run: npm run bench:serve-memory          (STEPS=200 by default; STEPS=2000 for the full figure, under flock)
import { createServeApp } from '../apps/serve/tinker/index.js';
import { tinkerBackend } from '../src/backend/tinker/index.js';
import { loadRenderer } from '../src/chat/index.js';
import { defaultModelDir } from '../src/backend/local/assets.js';

const STEPS = Number(process.env.STEPS ?? 200);
const REPORT = Number(process.env.REPORT ?? Math.max(1, Math.floor(STEPS / 4)));
const WARMUP = Number(process.env.WARMUP ?? 20);
const KEEP_ALL = process.env.KEEP_ALL === '1';
const GROUP = 4;
// MODEL=tiny: a 1-layer, 32-wide model (≈0.1 M parameters, ≈0.4 MiB per weights version) for a fast run on a busy machine.
const TINY_MODEL = process.env.MODEL === 'tiny';
const ENGINE_THREAD = process.env.ENGINE_THREAD === 'worker' ? 'worker' : 'main';
const MIB = 1024 * 1024;

interface Sample {
  step: number;
  rssMiB: number;
  heapMiB: number;
  outsideHeapMiB: number;
  versions: number;
}

function measure(step: number, versions: number): Sample {
  globalThis.gc?.();
  const m = process.memoryUsage();
  return { step, rssMiB: m.rss / MIB, heapMiB: m.heapUsed / MIB, outsideHeapMiB: (m.external + m.arrayBuffers) / MIB, versions };
}

const fmt = (s: Sample) =>
  `step ${String(s.step).padStart(5)}  rss ${s.rssMiB.toFixed(1).padStart(7)} MiB  heap ${s.heapMiB.toFixed(1).padStart(6)} MiB  outside heap ${s.outsideHeapMiB.toFixed(1).padStart(7)} MiB  sampler versions held ${s.versions}`;

async function main(): Promise<void> {
  const serve = createServeApp({
    port: 0,
    sessionTimeoutMs: 3_600_000,
    engineThread: ENGINE_THREAD,
    ...(TINY_MODEL ? { model: { layers: 1, dModel: 32, heads: 2, contextTokens: 128 } } : {}),
    ...(KEEP_ALL ? { serveLimits: { samplerVersionsPerModel: 2 ** 31 - 1 } } : {}),
  });
  const url = await serve.listen();
  const renderer = await loadRenderer({ dir: defaultModelDir() });
  const backend = tinkerBackend({
    baseUrl: url,
    apiKey: 'tml-bench',
    baseModel: serve.service.modelName,
    renderer,
    maxContextTokens: serve.service.contextTokens,
  });
  const prompt = renderer.renderPrompt([{ role: 'user', content: 'What is 12 * 7?' }]);
  console.log(
    `bench:serve-memory — ${STEPS} steps of forward_backward (2 datums × 16 tokens) + optim_step + save_weights_for_sampler + ${GROUP} samples (max 8 tokens), ${TINY_MODEL ? 'tiny model' : 'default model'}; ${KEEP_ALL ? 'KEEP_ALL (every version kept: the old behaviour)' : `server keeps ${serve.service.limits.samplerVersionsPerModel} unnamed versions per model`}`,
  );
  const datum = (i: number) => {
    const toks = Array.from({ length: 17 }, (_, t) => (i * 31 + t * 7) % 2000);
    const mask = toks.slice(1).map((_, t) => (t >= 4 ? 1 : 0));
    return {
      modelInput: toks.slice(0, 16),
      targetTokens: toks.slice(1),
      logprobs: mask.map((m) => (m ? -7 : 0)),
      advantages: mask.map((m) => (m ? ((i % 3) - 1) * 0.5 : 0)),
      mask,
    };
  };
  const step = async (i: number) => {
    await backend.forwardBackward([datum(i), datum(i + 1)], { kind: 'ppo', clipLow: 0.8, clipHigh: 1.28, aggregation: 'token-sum' });
    await backend.optimStep({ learningRate: 1e-4 });
    const sampler = await backend.saveWeightsForSampler();
    const seqs = await sampler.sample(prompt, { numSamples: GROUP, maxTokens: 8, seed: i, temperature: 1 });
    if (seqs.length !== GROUP) throw new Error(`expected ${GROUP} sequences, got ${seqs.length}`);
  };
  for (let i = 0; i < WARMUP; i++) await step(i);
  const start = measure(0, serve.service.stats().samplerVersions);
  console.log(fmt(start));
  const t0 = Date.now();
  let last = start;
  for (let i = 1; i <= STEPS; i++) {
    await step(WARMUP + i);
    if (i % REPORT === 0 || i === STEPS) console.log(fmt((last = measure(i, serve.service.stats().samplerVersions))));
  }
  const per1k = (a: number, b: number) => (((b - a) / STEPS) * 1000).toFixed(1);
  console.log(`\n${STEPS} steps in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  console.log(
    `start → end: rss ${start.rssMiB.toFixed(1)} → ${last.rssMiB.toFixed(1)} MiB (${per1k(start.rssMiB, last.rssMiB)} MiB per 1,000 steps); outside heap ${start.outsideHeapMiB.toFixed(1)} → ${last.outsideHeapMiB.toFixed(1)} MiB (${per1k(start.outsideHeapMiB, last.outsideHeapMiB)} per 1,000); sampler versions ${start.versions} → ${last.versions}`,
  );
  await backend.close();
  await serve.close();
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
