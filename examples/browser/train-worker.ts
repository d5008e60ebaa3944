/**
 * The demo's training loop, in a Web Worker: the ReTool agent (the shipped cold-start checkpoint) trained with PPO on
 * the embedded engine, its Python tool calls run by Pyodide in workers of their own. Everything runs in the page;
 * the server only serves files. Posts {@link WorkerMessage}s to the page.
 */
import { Trainer, codeInterpreter, exactMatch, localBackend, mountFiles, type Example } from 'agentrl/browser';
import { pyodideSandbox } from 'agentrl/adapters/pyodide';
import type { PageMessage, WorkerMessage } from './protocol.js';
import { MODEL, TOOL_TIMEOUT_MS, demoTrainerOptions, exampleOfRow } from './recipe.js';

const scope = globalThis as unknown as { postMessage(m: WorkerMessage): void; onmessage: ((e: { data: PageMessage }) => void) | null; location: { href: string } };
const post = (m: WorkerMessage) => scope.postMessage(m);
const here = (p: string) => new URL(p, scope.location.href);

let trainer: Trainer | undefined;

async function examples(path: string, limit: number): Promise<Example[]> {
  const res = await fetch(here(path));
  if (!res.ok) throw new Error(`${path}: HTTP ${res.status}`);
  return (await res.text()).split('\n').filter((l) => l.trim() !== '').slice(0, limit).map(exampleOfRow);
}

async function train(steps: number, evalEvery: number): Promise<void> {
  post({ kind: 'status', text: 'loading the cold-start checkpoint and the problems …' });
  await mountFiles('/ckpt/sft', {
    'config.json': here('ckpt/config.json'),
    'model.safetensors': here('ckpt/model.safetensors'),
    'optimizer.safetensors': here('ckpt/optimizer.safetensors'),
  });
  const [dataset, heldOut] = await Promise.all([examples('data/train.jsonl', 4000), examples('data/dev.jsonl', 16)]);
  const sandbox = pyodideSandbox({ workerUrl: here('pyodide-worker.js'), indexURL: here('pyodide/'), workers: 2, timeoutMs: TOOL_TIMEOUT_MS });
  trainer = new Trainer(
    demoTrainerOptions({
      backend: localBackend({ ...MODEL, checkpoint: '/ckpt/sft' }),
      env: codeInterpreter({ sandbox, systemPrompt: null, timeoutMs: TOOL_TIMEOUT_MS }),
      reward: exactMatch({ correct: 1, wrong: -1 }),
      dataset,
      heldOut,
      steps,
      evalEvery,
    }),
  );
  let stepStart = performance.now();
  trainer.on('rollout:start', () => post({ kind: 'status', text: 'sampling rollouts …' }));
  trainer.on('step', (e) => {
    const now = performance.now();
    post({ kind: 'step', step: e.step, metrics: e.metrics, stepMs: now - stepStart });
    stepStart = now;
  });
  trainer.on('eval', (e) => post({ kind: 'eval', step: e.step, averageAtN: e.metrics['eval/average_at_n'] ?? NaN, passAtN: e.metrics['eval/pass_at_n'] ?? NaN }));
  trainer.on('warning', (w) => post({ kind: 'warning', text: `[${w.code}] ${w.message}` }));
  trainer.on('trajectory', (e) => {
    // What the policy wrote (mask 1, trained on) and what the interpreter answered (mask 0: an observation).
    const segments = e.trajectory.turns.flatMap((t) => [
      { text: t.text, sampled: true },
      ...(t.observation ?? []).map((m) => ({ text: `\n${typeof m.content === 'string' ? m.content : JSON.stringify(m.content)}\n`, sampled: false })),
    ]);
    post({ kind: 'trajectory', step: e.step, reward: e.reward.reward, segments });
  });
  try {
    post({ kind: 'status', text: 'training …' });
    const summary = await trainer.train();
    post({ kind: 'done', steps: summary.steps, stopped: summary.stopped });
  } finally {
    await sandbox.close();
  }
}

scope.onmessage = (e) => {
  const m = e.data;
  if (m.kind === 'stop') trainer?.stop();
  else if (m.kind === 'start' && trainer === undefined) train(m.steps, m.evalEvery).catch((err: unknown) => post({ kind: 'error', message: err instanceof Error ? `${err.name}: ${err.message}` : String(err) }));
};
