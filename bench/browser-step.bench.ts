// A train step of the browser demo, in the page (headless Chromium, the demo's Web Worker: embedded engine on wasm,
// Python in Pyodide workers) and in Node (the same Trainer options: embedded engine, Python in the local sandbox),
// side by side; plus the agentrl/browser bundle size. Step 1 compiles the engine's kernels in both and is left out of
// the medians. Run: npm run bench:browser [-- --steps 5]   (needs Debian's chromium, or CHROMIUM_PATH)
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { chromium } from 'playwright-core';
import { Trainer, codeInterpreter, exactMatch, localBackend } from 'agentrl';
import { localSandbox } from 'agentrl/adapters/local';
import { MODEL, TOOL_TIMEOUT_MS, demoTrainerOptions, exampleOfRow } from '../examples/browser/recipe.js';
// @ts-expect-error -- a plain .mjs module without types
import { serveDemo } from '../examples/browser/serve.mjs';

const stepsArg = process.argv.indexOf('--steps');
const STEPS = stepsArg >= 0 ? Number(process.argv[stepsArg + 1]) : 5;
const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';
const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

interface StepTime {
  step: number;
  trainS: number;
  rolloutS: number;
  wallS: number;
  reward: number;
}

async function inNode(): Promise<StepTime[]> {
  const rows = (path: string) =>
    readFileSync(path, 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map(exampleOfRow);
  const sandbox = localSandbox({ workers: 2, timeoutMs: TOOL_TIMEOUT_MS });
  const trainer = new Trainer(
    demoTrainerOptions({
      backend: localBackend({ ...MODEL, checkpoint: 'examples/retool/checkpoints/sft' }),
      env: codeInterpreter({ sandbox, systemPrompt: null, timeoutMs: TOOL_TIMEOUT_MS }),
      reward: exactMatch({ correct: 1, wrong: -1 }),
      dataset: rows('examples/retool/data/train.jsonl'),
      heldOut: [],
      steps: STEPS,
      evalEvery: 0,
    }),
  );
  const out: StepTime[] = [];
  let t = performance.now();
  trainer.on('step', (e) => {
    const now = performance.now();
    out.push({
      step: e.step,
      trainS: e.metrics['time/train_s']!,
      rolloutS: e.metrics['time/rollout_s']!,
      wallS: (now - t) / 1000,
      reward: e.metrics['reward/mean']!,
    });
    t = now;
  });
  try {
    await trainer.train();
  } finally {
    await sandbox.close();
  }
  return out;
}

async function inPage(): Promise<StepTime[]> {
  const { url, close } = (await serveDemo(0)) as { url: string; close(): Promise<void> };
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu'] });
  try {
    const page = await browser.newPage();
    await page.goto(`${url}?steps=${STEPS}&evalEvery=0`);
    await page.click('#start');
    for (;;) {
      const status = await page.evaluate<string>("document.getElementById('status').textContent");
      if (/^(finished|stopped|error)/.test(status)) {
        if (status.startsWith('error')) throw new Error(status);
        break;
      }
      await new Promise((r) => setTimeout(r, 1000));
    }
    const msgs = await page.evaluate<{ kind: string; step: number; metrics: Record<string, number>; stepMs: number }[]>(
      "window.agentrlDemo.received.filter((m) => m.kind === 'step')",
    );
    return msgs.map((m) => ({
      step: m.step,
      trainS: m.metrics['time/train_s']!,
      rolloutS: m.metrics['time/rollout_s']!,
      wallS: m.stepMs / 1000,
      reward: m.metrics['reward/mean']!,
    }));
  } finally {
    await browser.close();
    await close();
  }
}

execFileSync(process.execPath, ['examples/browser/build.mjs'], { stdio: 'inherit' });
const bundle = JSON.parse(execFileSync(process.execPath, ['scripts/check-browser-bundle.mjs', '--json'], { encoding: 'utf8' })) as {
  bytes: number;
  gzipBytes: number;
};
// One after the other, never together: both are single-threaded wasm and would share the same cores.
const page = await inPage();
const node = await inNode();

console.log(
  `\nagentrl/browser bundle: ${(bundle.bytes / 1024).toFixed(0)} KiB minified, ${(bundle.gzipBytes / 1024).toFixed(0)} KiB gzip (engine, renderer, Trainer; Pyodide's files are separate)`,
);
console.log(`\nstep | page train_s rollout_s wall_s reward | node train_s rollout_s wall_s reward`);
for (let i = 0; i < Math.max(page.length, node.length); i++) {
  const p = page[i];
  const n = node[i];
  const f = (s: StepTime | undefined) =>
    s
      ? `${s.trainS.toFixed(2).padStart(8)} ${s.rolloutS.toFixed(2).padStart(9)} ${s.wallS.toFixed(2).padStart(6)} ${s.reward.toFixed(3).padStart(6)}`
      : '-'.padStart(32);
  console.log(`${String(i + 1).padStart(4)} | ${f(p)} | ${f(n)}`);
}
const warm = (xs: StepTime[], k: (s: StepTime) => number) => median(xs.filter((s) => s.step > 1).map(k));
const rows: [string, (s: StepTime) => number][] = [
  ['train step (time/train_s)', (s) => s.trainS],
  ['rollout (time/rollout_s)', (s) => s.rolloutS],
  ['step wall time', (s) => s.wallS],
];
console.log(`\nmedian over steps 2–${STEPS} (step 1 compiles):`);
for (const [name, k] of rows)
  console.log(
    `  ${name.padEnd(26)} page ${warm(page, k).toFixed(2)} s   node ${warm(node, k).toFixed(2)} s   page/node ${(warm(page, k) / warm(node, k)).toFixed(2)}`,
  );
