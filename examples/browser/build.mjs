#!/usr/bin/env node
// Builds the demo page into examples/browser/dist/: the page and its two workers bundled with esbuild for the browser
// (agentrl/browser from src/, platform modules swapped for their .browser.ts versions), Pyodide's files from the npm
// package, the shipped ReTool cold-start checkpoint and the ReTool problems (generated as `npm run retool:data` does).
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { browserPlatform } from '../../scripts/browser-platform.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../..');
const out = join(here, 'dist');

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });

await build({
  entryPoints: { page: join(here, 'page.ts'), 'train-worker': join(here, 'train-worker.ts'), 'pyodide-worker': join(root, 'adapters/pyodide/worker.ts') },
  outdir: out,
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2022',
  minify: true,
  sourcemap: true,
  metafile: false,
  logLevel: 'warning',
  alias: { 'agentrl/browser': join(root, 'src/browser/index.ts'), 'agentrl/adapters/pyodide': join(root, 'adapters/pyodide/index.ts') },
  plugins: [browserPlatform()],
});
copyFileSync(join(here, 'index.html'), join(out, 'index.html'));

const pyodide = join(root, 'node_modules/pyodide');
mkdirSync(join(out, 'pyodide'));
for (const f of ['pyodide.mjs', 'pyodide.asm.mjs', 'pyodide.asm.wasm', 'python_stdlib.zip', 'pyodide-lock.json'])
  copyFileSync(join(pyodide, f), join(out, 'pyodide', f));

const ckpt = join(root, 'examples/retool/checkpoints/sft');
mkdirSync(join(out, 'ckpt'));
for (const f of ['config.json', 'model.safetensors', 'optimizer.safetensors']) copyFileSync(join(ckpt, f), join(out, 'ckpt', f));

const data = join(root, 'examples/retool/data');
if (!existsSync(join(data, 'train.jsonl')))
  execFileSync(process.execPath, ['--import', 'tsx', join(root, 'examples/retool/prepare-data.ts')], { cwd: root, stdio: 'inherit' });
mkdirSync(join(out, 'data'));
for (const f of ['train.jsonl', 'dev.jsonl']) copyFileSync(join(data, f), join(out, 'data', f));
console.log(`demo built in ${out}`);
