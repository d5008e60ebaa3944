#!/usr/bin/env node
// Bundles the `agentrl/browser` entry (src/browser/index.ts) for `platform: 'browser'` with esbuild and fails when its
// import graph reaches any Node built-in (`node:*`, `fs`, `path`, `worker_threads`, …) or any import cannot be
// resolved. Prints the bundle size (minified, and gzip) and, on failure, the chain of importers down to each Node import.
// Usage: node scripts/check-browser-bundle.mjs [--entry <file>] [--json]
import { builtinModules } from 'node:module';
import { gzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { resolve } from 'node:path';
import { readFileSync } from 'node:fs';
import { build } from 'esbuild';
import { browserPlatform } from './browser-platform.mjs';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const args = process.argv.slice(2);
const entryArg = args.indexOf('--entry');
const entry = resolve(root, entryArg >= 0 ? args[entryArg + 1] : 'src/browser/index.ts');
const asJson = args.includes('--json');

const builtins = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]));
const isNodeBuiltin = (p) => p.startsWith('node:') || builtins.has(p) || builtins.has(p.split('/')[0]);

/** Every Node built-in import, recorded with its importer (so the chain can be printed), then marked external. */
const nodeImports = [];
/** Node-only globals used bare in agentrl's own sources (a platform module reaches them through `globalThis` if ever). */
const NODE_GLOBAL = /(?<![.\w$'"`])(Buffer|setImmediate|process|__dirname|__filename|require)\s*[.(]/g;
const stripComments = (src) => src.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
const recordNodeImports = {
  name: 'record-node-imports',
  setup(b) {
    b.onResolve({ filter: /.*/ }, (a) => {
      if (a.kind === 'entry-point' || !isNodeBuiltin(a.path)) return undefined;
      nodeImports.push({ path: a.path, importer: a.importer });
      return { path: a.path, external: true };
    });
    b.onLoad({ filter: /\.ts$/ }, (a) => {
      if (a.path.includes('node_modules')) return undefined;
      for (const m of stripComments(readFileSync(a.path, 'utf8')).matchAll(NODE_GLOBAL)) nodeImports.push({ path: `global ${m[1]}`, importer: a.path });
      return undefined;
    });
  },
};

let result;
try {
  result = await build({
    entryPoints: [entry],
    bundle: true,
    platform: 'browser',
    format: 'esm',
    target: 'es2022',
    minify: true,
    write: false,
    metafile: true,
    logLevel: 'silent',
    // The engine's wasm and worker loaders resolve relative to import.meta.url; esbuild need not inline them.
    loader: { '.wasm': 'file' },
    outdir: 'out',
    plugins: [browserPlatform(), recordNodeImports],
  });
} catch (e) {
  const errors = e.errors ?? [{ text: String(e) }];
  console.error(`browser bundle: ${errors.length} error(s)`);
  for (const er of errors.slice(0, 40)) console.error(`  ${er.location ? `${er.location.file}:${er.location.line}: ` : ''}${er.text}`);
  process.exit(1);
}

/** importer → the files that import it, to walk from a Node import back to the entry. */
const importedBy = new Map();
for (const [file, info] of Object.entries(result.metafile.inputs)) {
  for (const imp of info.imports) {
    if (!importedBy.has(imp.path)) importedBy.set(imp.path, []);
    importedBy.get(imp.path).push(file);
  }
}
const rel = (p) => p.replace(`${root}/`, '');
function chainTo(file) {
  const chain = [rel(file)];
  const seen = new Set([file]);
  let cur = rel(file);
  for (let i = 0; i < 30; i++) {
    const up = (importedBy.get(cur) ?? []).find((f) => !seen.has(f));
    if (!up) break;
    seen.add(up);
    chain.push(up);
    cur = up;
  }
  return chain;
}

const js = result.outputFiles.filter((f) => f.path.endsWith('.js'));
const bytes = js.reduce((n, f) => n + f.contents.byteLength, 0);
const gzipBytes = js.reduce((n, f) => n + gzipSync(f.contents).byteLength, 0);
const report = {
  entry: rel(entry),
  bytes,
  gzipBytes,
  inputs: Object.keys(result.metafile.inputs).length,
  nodeImports: nodeImports.map((n) => ({ path: n.path, importer: rel(n.importer) })),
};

if (asJson) console.log(JSON.stringify(report));
else
  console.log(
    `browser bundle: ${report.entry} → ${(bytes / 1024).toFixed(0)} KiB minified, ${(gzipBytes / 1024).toFixed(0)} KiB gzip, ${report.inputs} input files`,
  );
if (nodeImports.length > 0) {
  console.error(`browser bundle: ${nodeImports.length} Node built-in import(s) in the import graph:`);
  for (const n of nodeImports) console.error(`  ${n.path}  ←  ${chainTo(n.importer).join('  ←  ')}`);
  process.exit(1);
}
