// Checks (default) or updates (--local) the public API reports in docs/api/, one per entry point.
// Runs api-extractor on the .d.ts files that `npm run build` wrote to dist/.
// Fails (in both modes) when a name is undocumented (ae-undocumented) or an entry point exposes a type users cannot
// import (ae-forgotten-export). Every entry point belongs to one package, so a type that the main entry `agentrl`
// exports counts as importable from the other entries too (api-extractor checks each entry point on its own).
import { Extractor, ExtractorConfig } from '@microsoft/api-extractor';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const local = process.argv.includes('--local');
const entries = {
  agentrl: 'dist/index.d.ts',
  'agentrl-testing': 'dist/testing.d.ts',
  'agentrl-testing-conformance': 'dist/testing/conformance.d.ts',
  'agentrl-otel': 'dist/otel.d.ts',
  'agentrl-wandb': 'dist/wandb.d.ts',
  'agentrl-browser': 'dist/browser.d.ts',
  'agentrl-serve': 'dist/serve.d.ts',
};
// One report per sandbox adapter the package exports (`./adapters/<name>`), so a new adapter needs no edit here.
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
// An export that is a bare file (a Web Worker script such as `./adapters/pyodide/worker`) has no declarations to report.
for (const key of Object.keys(pkg.exports)
  .filter((k) => k.startsWith('./adapters/') && typeof pkg.exports[k] === 'object')
  .sort()) {
  entries[`agentrl-adapters-${key.slice('./adapters/'.length)}`] = `dist/adapters/${key.slice('./adapters/'.length)}.d.ts`;
}
const base = ExtractorConfig.loadFile(join(root, 'api-extractor.json'));
let failed = false;
const problems = [];
let mainExports = new Set();
/** The names a report declares as exports: `export declare class X`, `export interface X`, `export type X`, …. */
const exportedNames = (report) =>
  new Set([...report.matchAll(/^export (?:declare )?(?:abstract )?(?:class|interface|type|function|const|let|enum|namespace) (\w+)/gm)].map((m) => m[1]));
for (const [name, dts] of Object.entries(entries)) {
  if (!existsSync(join(root, dts))) {
    console.error(`api-report: ${dts} missing — run \`npm run build\` first`);
    process.exit(1);
  }
  const config = ExtractorConfig.prepare({
    configObject: {
      ...base,
      mainEntryPointFilePath: join(root, dts),
      apiReport: { ...base.apiReport, reportFileName: `${name}.api.md` },
    },
    configObjectFullPath: join(root, 'api-extractor.json'),
    packageJsonFullPath: join(root, 'package.json'),
  });
  const onMessage = (m) => {
    if (m.messageId === 'ae-forgotten-export' || m.messageId === 'ae-undocumented') {
      const symbol = /"([^"]+)"/.exec(m.text)?.[1];
      if (m.messageId === 'ae-forgotten-export' && name !== 'agentrl' && mainExports.has(symbol)) m.logLevel = 'none';
      else problems.push(`${name}: ${m.messageId}: ${m.text}${m.sourceFilePath ? ` (${m.sourceFilePath.replace(root + '/', '')}:${m.sourceFileLine})` : ''}`);
      m.handled = true;
    } else if (m.logLevel === 'warning' && !m.text.includes('TSDoc')) m.logLevel = 'none';
  };
  const result = Extractor.invoke(config, { localBuild: local, showVerboseMessages: false, messageCallback: onMessage });
  if (name === 'agentrl')
    mainExports = exportedNames(readFileSync(local ? join(root, 'docs/api', 'agentrl.api.md') : join(root, 'temp/api', 'agentrl.api.md'), 'utf8'));
  if (result.apiReportChanged && !local) {
    console.error(`api-report: the public API of ${name} changed; run \`npm run build && npm run api:update\` and commit docs/api/${name}.api.md`);
    failed = true;
  } else if (!result.succeeded && !local) {
    console.error(`api-report: ${name}: ${result.errorCount} error(s)`);
    failed = true;
  }
}
if (problems.length > 0) {
  for (const p of problems) console.error(`api-report: ${p}`);
  console.error(
    `api-report: ${problems.length} name(s) undocumented or exposed without an export: document them (TSDoc) or export the type from its entry point`,
  );
  failed = true;
}
if (failed) process.exit(1);
console.log(local ? 'api-report: updated docs/api/' : 'api-report: public API matches docs/api/');
