// Backend overhead benchmark: one RL step (PPO forward_backward on 64 datums × the full context, Adam step,
// publish weights to a sampler) on the embedded engine in-process vs. the same engine behind `agentrl serve`
// (a child process, Tinker HTTP API on loopback, driven by tinkerBackend). Steps alternate, side by side in one run.
// Prints the best and median step of each and the overhead ratios, best-vs-best and median-vs-median (goal: HTTP adds ≤ 5%
// to a step with the default wire format — protobuf where the server accepts it), in wall time and in CPU time
// (this process + the server process, from /proc), which stays meaningful on a machine shared with other work.
// Run: npm run bench:backend   (REPS=3 by default; WIRE=json|protobuf|auto picks the wire format, default auto;
// CPU_PROF_DIR=dir node --cpu-prof --cpu-prof-dir=dir --import tsx bench/backend.bench.ts profiles both processes)
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { DEFAULT_LOCAL_MODEL, localBackend, type TrainingBackend } from '../src/backend/index.js';
import { tinkerBackend } from '../src/backend/tinker/index.js';
import type { Datum } from '../src/types/datum.js';
import type { LossConfig } from '../src/types/loss-config.js';

const REPS = Number(process.env.REPS ?? 3);
const WIRE = (process.env.WIRE ?? 'auto') as 'auto' | 'json' | 'protobuf';
const DATUMS = 64;
const T = DEFAULT_LOCAL_MODEL.contextTokens;
const root = fileURLToPath(new URL('..', import.meta.url));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

function batch(seed: number): Datum[] {
  let s = seed;
  const rnd = () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 4294967296;
  return Array.from({ length: DATUMS }, () => {
    const toks = Array.from({ length: T + 1 }, () => Math.floor(rnd() * 2000));
    const prompt = 64;
    const mask = Array.from({ length: T }, (_, t) => (t >= prompt ? 1 : 0));
    return {
      modelInput: toks.slice(0, T),
      targetTokens: toks.slice(1),
      logprobs: mask.map((m) => (m ? -7.5 + rnd() : 0)),
      advantages: mask.map((m) => (m ? rnd() * 2 - 1 : 0)),
      mask,
    };
  });
}

/**
 * Starts `agentrl serve --port 0` (default model, seed 0) and resolves to its URL. The in-process steps block this
 * process (and the client's heartbeats) for minutes on a busy machine, so the session timeout is raised.
 */
function startServer(): Promise<{ url: string; child: ChildProcess }> {
  // AGENTRL_SERVE_ENTRY: a built CLI entry (e.g. a bundle) instead of the TypeScript source.
  const entry = process.env.AGENTRL_SERVE_ENTRY ? [process.env.AGENTRL_SERVE_ENTRY] : ['--import', 'tsx', 'apps/cli/main.ts'];
  // CPU_PROF_DIR: write a V8 CPU profile of the server there too (run the bench itself with node --cpu-prof).
  const prof = process.env.CPU_PROF_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.CPU_PROF_DIR}`] : [];
  const args = [...prof, ...entry, 'serve', '--port', '0', '--session-timeout-s', '3600'];
  const child = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (b: Buffer) => {
      out += b.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve({ url: m[1]!, child });
    });
    child.once('exit', (code) => reject(new Error(`agentrl serve exited with ${code}: ${out}`)));
  });
}

/** CPU milliseconds (user + system) used so far by process `pid`, from /proc; undefined where there is no /proc. */
function procCpuMs(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(f[11]) + Number(f[12])) * 1000) / 100; // utime + stime, in USER_HZ (100 on Linux)
  } catch {
    return undefined;
  }
}

const loss: LossConfig = { kind: 'ppo', clipLow: 0.8, clipHigh: 1.28, aggregation: 'token-mean' };
/** One RL step; wall ms and CPU ms of this process plus the server's (`serverPid`). */
async function step(b: TrainingBackend, data: Datum[], serverPid: number): Promise<{ wall: number; cpu: number }> {
  const c0 = process.cpuUsage();
  const s0 = procCpuMs(serverPid) ?? 0;
  const t0 = performance.now();
  await b.forwardBackward(data, loss);
  await b.optimStep({ learningRate: 1e-4, beta1: 0.9, beta2: 0.99, eps: 1e-8, gradClipNorm: 1 });
  await b.saveWeightsForSampler();
  const wall = performance.now() - t0;
  const c = process.cpuUsage(c0);
  return { wall, cpu: (c.user + c.system) / 1000 + ((procCpuMs(serverPid) ?? 0) - s0) };
}

const { url, child } = await startServer();
const local = localBackend();
const remote = tinkerBackend({ baseUrl: url, baseModel: 'agentrl/local', renderer: `${root}assets/local-model`, maxContextTokens: T, wireFormat: WIRE });
try {
  const data = batch(1);
  const pid = child.pid!;
  console.log(
    `RL step: PPO forward_backward ${DATUMS} datums × ${T} tokens + Adam + save_weights_for_sampler; ${REPS} reps after 1 warm-up each, alternating; wire format ${WIRE}`,
  );
  await step(local, data, pid);
  await step(remote, data, pid);
  const l: { wall: number; cpu: number }[] = [];
  const r: { wall: number; cpu: number }[] = [];
  for (let i = 0; i < REPS; i++) {
    l.push(await step(local, data, pid));
    r.push(await step(remote, data, pid));
    console.log(
      `  rep ${i + 1}: in-process ${l.at(-1)!.wall.toFixed(0)} ms wall / ${l.at(-1)!.cpu.toFixed(0)} ms CPU, agentrl serve ${r.at(-1)!.wall.toFixed(0)} ms wall / ${r.at(-1)!.cpu.toFixed(0)} ms CPU (client + server)`,
    );
  }
  // Best of the reps (least disturbed by other load) is the headline; medians beside it.
  const best = (xs: { wall: number; cpu: number }[], k: 'wall' | 'cpu') => Math.min(...xs.map((x) => x[k]));
  const med = (xs: { wall: number; cpu: number }[], k: 'wall' | 'cpu') => median(xs.map((x) => x[k]));
  const row = (name: string, xs: { wall: number; cpu: number }[]) =>
    console.log(
      `${name} best ${best(xs, 'wall').toFixed(0)} ms wall / ${best(xs, 'cpu').toFixed(0)} ms CPU; median ${med(xs, 'wall').toFixed(0)} / ${med(xs, 'cpu').toFixed(0)}`,
    );
  row('in-process (localBackend):                 ', l);
  row('agentrl serve on loopback (tinkerBackend): ', r);
  const ratio = (k: 'wall' | 'cpu') => best(r, k) / best(l, k);
  const mratio = (k: 'wall' | 'cpu') => med(r, k) / med(l, k);
  const pct = (x: number) => `${x >= 1 ? '+' : ''}${((x - 1) * 100).toFixed(1)}%`;
  console.log(
    `overhead ratio (best of ${REPS}):   wall ${ratio('wall').toFixed(3)} (${pct(ratio('wall'))}), CPU ${ratio('cpu').toFixed(3)} (${pct(ratio('cpu'))}, client + server); goal ≤ 5%`,
  );
  console.log(
    `overhead ratio (median of ${REPS}): wall ${mratio('wall').toFixed(3)} (${pct(mratio('wall'))}), CPU ${mratio('cpu').toFixed(3)} (${pct(mratio('cpu'))}, client + server); goal ≤ 5%`,
  );
} finally {
  await remote.close();
  await local.close();
  child.kill('SIGTERM');
}
