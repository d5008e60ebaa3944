/**
 * The demo's training loop, in a Web Worker: the ReTool agent (the shipped cold-start checkpoint) trained with PPO on
 * the embedded engine, its Python tool calls run by Pyodide in workers of their own. Everything runs in the page;
 * the server only serves files. The run (metrics.jsonl, trajectories.jsonl, config.json, the last checkpoint) is
 * written by the Trainer to `/runs/<time>` in the page's IndexedDB, so a later visit lists and shows it.
 * Posts {@link WorkerMessage}s to the page.
 */
import {
  TRAJECTORY_CSS,
  Trainer,
  codeInterpreter,
  currentStorage,
  exactMatch,
  indexedDbStorage,
  localBackend,
  mountFiles,
  useStorage,
  type Example,
  type RunStorage,
} from 'agentrl/browser';
import { pyodideSandbox } from 'agentrl/adapters/pyodide';
import type { PageMessage, WorkerMessage } from './protocol.js';
import { MODEL, TOOL_TIMEOUT_MS, demoTrainerOptions, exampleOfRow } from './recipe.js';
import { RUNS_DIR, describeRun, listRuns, readRunCurves, trajectoryView } from './stored-runs.js';

const scope = globalThis as unknown as {
  postMessage(m: WorkerMessage): void;
  onmessage: ((e: { data: PageMessage }) => void) | null;
  location: { href: string };
};
const post = (m: WorkerMessage) => scope.postMessage(m);
const here = (p: string) => new URL(p, scope.location.href);

// Runs persist in IndexedDB; the bundled tokenizer and the checkpoint mounted from URLs stay in the memory storage.
// Where the page has no IndexedDB (a private window may refuse it), runs are kept in memory, with a warning.
const persistent = indexedDbStorage({ database: 'agentrl-demo', root: RUNS_DIR, base: currentStorage() }).then(
  (s) => {
    useStorage(s);
    return s;
  },
  (err: unknown) => {
    post({ kind: 'warning', text: `runs are kept in memory only (IndexedDB: ${err instanceof Error ? err.message : String(err)})` });
    return undefined;
  },
);
const storage: Promise<RunStorage> = persistent.then((s) => s ?? currentStorage());
let trainer: Trainer | undefined;

async function examples(path: string, limit: number): Promise<Example[]> {
  const res = await fetch(here(path));
  if (!res.ok) throw new Error(`${path}: HTTP ${res.status}`);
  return (await res.text())
    .split('\n')
    .filter((l) => l.trim() !== '')
    .slice(0, limit)
    .map(exampleOfRow);
}

async function train(steps: number, evalEvery: number): Promise<void> {
  const store = await storage;
  post({ kind: 'status', text: 'loading the cold-start checkpoint and the problems …' });
  await mountFiles('/ckpt/sft', {
    'config.json': here('ckpt/config.json'),
    'model.safetensors': here('ckpt/model.safetensors'),
    'optimizer.safetensors': here('ckpt/optimizer.safetensors'),
  });
  const [dataset, heldOut] = await Promise.all([examples('data/train.jsonl', 4000), examples('data/dev.jsonl', 16)]);
  const sandbox = pyodideSandbox({ workerUrl: here('pyodide-worker.js'), indexURL: here('pyodide/'), workers: 2, timeoutMs: TOOL_TIMEOUT_MS });
  const run = new Date().toISOString().replace(/[:.]/g, '-');
  trainer = new Trainer({
    ...demoTrainerOptions({
      backend: localBackend({ ...MODEL, checkpoint: '/ckpt/sft' }),
      env: codeInterpreter({ sandbox, systemPrompt: null, timeoutMs: TOOL_TIMEOUT_MS }),
      reward: exactMatch({ correct: 1, wrong: -1 }),
      dataset,
      heldOut,
      steps,
      evalEvery,
    }),
    logDir: `${RUNS_DIR}/${run}`,
    runName: run,
    // One checkpoint (weights + optimizer, ≈ 9 MB) at the end or on Stop, every 10 steps on long runs.
    checkpointEvery: 10,
    checkpointKeepLast: 1,
  });
  let stepStart = performance.now();
  trainer.on('rollout:start', () => post({ kind: 'status', text: 'sampling rollouts …' }));
  trainer.on('step', (e) => {
    const now = performance.now();
    post({ kind: 'step', step: e.step, metrics: e.metrics, stepMs: now - stepStart });
    stepStart = now;
    // The trajectory log has appended this step's records (best and worst of its first groups) by now.
    const view = trajectoryView(store, run, e.step);
    if (view !== undefined) post({ kind: 'trajectory', ...view });
  });
  trainer.on('eval', (e) =>
    post({ kind: 'eval', step: e.step, averageAtN: e.metrics['eval/average_at_n'] ?? NaN, passAtN: e.metrics['eval/pass_at_n'] ?? NaN }),
  );
  trainer.on('warning', (w) => post({ kind: 'warning', text: `[${w.code}] ${w.message}` }));
  try {
    post({ kind: 'status', text: 'training …' });
    const summary = await trainer.train();
    await (await persistent)?.flush();
    post({ kind: 'done', steps: summary.steps, stopped: summary.stopped, run });
  } finally {
    await sandbox.close();
  }
}

async function load(name: string): Promise<void> {
  const store = await storage;
  if (!store.isDir(`${RUNS_DIR}/${name}`)) throw new Error(`no stored run ${name}`);
  const trajectory = trajectoryView(store, name);
  post({ kind: 'run', run: describeRun(store, name), ...readRunCurves(store, name), ...(trajectory ? { trajectory } : {}) });
}

function fail(err: unknown): void {
  post({ kind: 'error', message: err instanceof Error ? `${err.name}: ${err.message}` : String(err) });
}

storage.then((s) => post({ kind: 'ready', runs: listRuns(s), viewerCss: TRAJECTORY_CSS }), fail);

scope.onmessage = (e) => {
  const m = e.data;
  if (m.kind === 'stop') trainer?.stop();
  else if (m.kind === 'start' && trainer === undefined) train(m.steps, m.evalEvery).catch(fail);
  else if (m.kind === 'load') load(m.name).catch(fail);
};
