/**
 * Rollout pipeline benchmark: the real Trainer loop over a simulated sampler, sandbox and learner, in three modes
 * side by side in one run, at the same concurrency:
 *   - round-synchronous (`rollout.streaming: false`): the step waits for its slowest trajectory, rewards after all;
 *   - streaming (`rollout.streaming: true`, `async.maxStaleness: 0`): each trajectory scored as it ends, a trajectory
 *     slot refilled as soon as one ends, still on-policy;
 *   - streaming + overlap (`async.maxStaleness: 1`): rollouts for the next step continue while the learner trains.
 *
 * Simulation: each sampling call takes a long-tailed lognormal time per turn (median GEN_MS, σ GEN_SIGMA; a group's
 * first-turn fork of G sequences ends with its slowest); each tool call takes 5–500 ms (log-uniform); a trajectory
 * makes 0–3 tool calls; the learner spends FB_MS per micro-batch plus OPTIM_MS per step. The sampler has CONCURRENCY
 * trajectory slots in every mode (round-synchronous: CONCURRENCY / G groups at once).
 * Prints trajectories/s (trained trajectories over wall time), sampler busy (share of wall time with at least one
 * generation in flight), mean generation-slot occupancy, and learner busy; then the ratios to round-synchronous.
 *
 *   npm run bench:rollout       (env: STEPS=8 QUESTIONS=8 GROUP=8 CONCURRENCY=64 GEN_MS=150 GEN_SIGMA=1 FB_MS=60 OPTIM_MS=300 SEED=1)
 */
import { fileURLToPath } from 'node:url';
import {
  Trainer,
  codeInterpreter,
  loadRenderer,
  mulberry32,
  type Example,
  type Reward,
  type SamplingClient,
  type TrainerOptions,
  type TrainingBackend,
} from '../src/internal.js';
import { fakeSandbox, mockBackend, scriptedSampler } from '../src/testing/index.js';

const env = (k: string, d: number) => Number(process.env[k] ?? d);
const STEPS = env('STEPS', 8);
const QUESTIONS = env('QUESTIONS', 8);
const GROUP = env('GROUP', 8);
const CONCURRENCY = env('CONCURRENCY', QUESTIONS * GROUP);
const GEN_MS = env('GEN_MS', 150);
const GEN_SIGMA = env('GEN_SIGMA', 1);
const FB_MS = env('FB_MS', 60);
const OPTIM_MS = env('OPTIM_MS', 300);
const SEED = env('SEED', 1);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const renderer = await loadRenderer({ dir: fileURLToPath(new URL('../assets/local-model', import.meta.url)) });
const toolCall = (code: string) => `<tool_call>\n${JSON.stringify({ name: 'code_interpreter', arguments: { code } })}\n</tool_call>`;

interface Mode {
  readonly name: string;
  readonly options: Partial<TrainerOptions>;
}
const modes: Mode[] = [
  { name: 'round-synchronous', options: { rollout: { streaming: false, maxConcurrentGroups: Math.max(1, Math.floor(CONCURRENCY / GROUP)) } } },
  { name: 'streaming', options: { rollout: { streaming: true, maxConcurrentTrajectories: CONCURRENCY } } },
  { name: 'streaming + maxStaleness 1', options: { rollout: { streaming: true, maxConcurrentTrajectories: CONCURRENCY }, async: { maxStaleness: 1 } } },
];

/** Busy-time accounting of a resource with a count of things in flight. */
function meter() {
  let inFlight = 0;
  let last = performance.now();
  let busyMs = 0;
  let occupancyMs = 0;
  const tick = () => {
    const now = performance.now();
    if (inFlight > 0) busyMs += now - last;
    occupancyMs += inFlight * (now - last);
    last = now;
  };
  return {
    enter: (n = 1) => {
      tick();
      inFlight += n;
      return inFlight;
    },
    leave: (n = 1) => {
      tick();
      inFlight -= n;
      return inFlight;
    },
    read: () => {
      tick();
      return { busyMs, occupancyMs };
    },
  };
}

async function run(mode: Mode) {
  const rng = mulberry32(SEED);
  const normal = () => Math.sqrt(-2 * Math.log(1 - rng())) * Math.cos(2 * Math.PI * rng());
  const genMs = () => GEN_MS * Math.exp(GEN_SIGMA * normal());
  const gen = meter();
  const learner = meter();
  // Content: a tool call while fewer than the trajectory's drawn number of calls were made, then an answer.
  const script = scriptedSampler({
    renderer,
    script: ({ prompt, sample }) => {
      const calls = prompt.split('<tool_response>').length - 1;
      const wanted = Number(/want (\d)/.exec(prompt.slice(prompt.lastIndexOf('want')))?.[1] ?? 0);
      if (calls < Math.min(3, wanted)) return toolCall(`print(${sample})`);
      return `\\boxed{${rng() < 0.5 ? 1 : 0}}`;
    },
  });
  const sampler: SamplingClient = {
    async sample(prompt, params) {
      const n = params.numSamples ?? 1;
      gen.enter(n);
      try {
        await sleep(Math.max(...Array.from({ length: n }, genMs)));
        return await script.sample(prompt, params);
      } finally {
        gen.leave(n);
      }
    },
    computeLogprobs: (t) => script.computeLogprobs(t),
  };
  const base = mockBackend({ renderer, sampler });
  const backend: TrainingBackend = {
    ...base,
    async forwardBackward(d, l, o) {
      learner.enter();
      await sleep(FB_MS);
      learner.leave();
      return base.forwardBackward(d, l, o);
    },
    async optimStep(p) {
      learner.enter();
      await sleep(OPTIM_MS);
      learner.leave();
      return base.optimStep(p);
    },
  };
  const sandbox = fakeSandbox(async () => {
    await sleep(5 * 100 ** rng());
    return { stdout: '1' };
  });
  // Each example asks for 0–3 tool calls; the reward is +1 for \boxed{1}.
  const dataset: Example[] = Array.from({ length: 64 }, (_, i) => ({ id: `q${i}`, question: `question ${i}, want ${i % 4}`, answer: '1' }));
  const reward: Reward = (t) => ({ reward: t.finalText.includes('\\boxed{1}') ? 1 : -1, correct: t.finalText.includes('\\boxed{1}'), validFormat: true });
  const trainer = new Trainer({
    backend,
    env: codeInterpreter({ sandbox, systemPrompt: null }),
    reward,
    loss: { kind: 'ppo', clipLow: 0.8, clipHigh: 1.28 },
    dataset,
    groupSize: GROUP,
    questionsPerBatch: QUESTIONS,
    maxSteps: STEPS,
    budgets: { maxToolCalls: 3, maxTurns: 5 },
    microBatch: { maxTokens: 1 << 20, maxDatums: 16 },
    seed: SEED,
    progress: false,
    ...mode.options,
  } as TrainerOptions);
  let trajectories = 0;
  let staleness = 0;
  let staleDropped = 0;
  trainer.on('step', (e) => {
    trajectories += e.metrics['rollout/trajectories'] ?? 0;
    staleness += (e.metrics['rollout/staleness_mean'] ?? 0) / STEPS;
    staleDropped += e.metrics['rollout/stale_dropped'] ?? 0;
  });
  const t0 = performance.now();
  gen.read();
  const startGen = gen.read();
  const summary = await trainer.train();
  const wallMs = performance.now() - t0;
  const g = gen.read();
  const l = learner.read();
  return {
    mode: mode.name,
    steps: summary.steps,
    trajectoriesPerS: trajectories / (wallMs / 1000),
    samplerBusy: (g.busyMs - startGen.busyMs) / wallMs,
    slotOccupancy: (g.occupancyMs - startGen.occupancyMs) / wallMs / CONCURRENCY,
    learnerBusy: l.busyMs / wallMs,
    staleness,
    staleDropped,
    wallS: wallMs / 1000,
  };
}

console.log(
  `rollout pipeline: ${STEPS} steps × ${QUESTIONS} groups × ${GROUP}, concurrency ${CONCURRENCY} trajectories, generation lognormal(median ${GEN_MS} ms, σ ${GEN_SIGMA}) per turn, sandbox 5–500 ms, learner ${FB_MS} ms/micro-batch + ${OPTIM_MS} ms/step`,
);
const results = [];
for (const m of modes) results.push(await run(m));
const pct = (x: number) => `${(x * 100).toFixed(0)}%`.padStart(5);
console.log(
  `${'mode'.padEnd(28)} ${'traj/s'.padStart(7)} ${'wall s'.padStart(7)} ${'sampler busy'.padStart(12)} ${'slot occ.'.padStart(9)} ${'learner busy'.padStart(12)} ${'staleness'.padStart(9)} ${'stale dropped'.padStart(13)}  ×sync`,
);
const sync = results[0]!.trajectoriesPerS;
for (const r of results) {
  console.log(
    `${r.mode.padEnd(28)} ${r.trajectoriesPerS.toFixed(1).padStart(7)} ${r.wallS.toFixed(1).padStart(7)} ${pct(r.samplerBusy).padStart(12)} ${pct(r.slotOccupancy).padStart(9)} ${pct(r.learnerBusy).padStart(12)} ${r.staleness.toFixed(2).padStart(9)} ${String(r.staleDropped).padStart(13)}  ${(r.trajectoriesPerS / sync).toFixed(2)}×`,
  );
}
const best = results[2]!;
console.log(
  `goals: streaming + overlap ≥ 1.5× round-synchronous: ${(best.trajectoriesPerS / sync).toFixed(2)}× ${best.trajectoriesPerS / sync >= 1.5 ? 'met' : 'NOT met'}; sampler busy ≥ 90%: ${pct(best.samplerBusy).trim()} ${best.samplerBusy >= 0.9 ? 'met' : 'NOT met'}`,
);
