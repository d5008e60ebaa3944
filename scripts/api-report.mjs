// Checks (default) or updates (--local) the public API reports in docs/api/, one per entry point.
// Runs api-extractor on the .d.ts files that `npm run build` wrote to dist/.
import { Extractor, ExtractorConfig } from '@microsoft/api-extractor';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const local = process.argv.includes('--local');
const entries = {
  agentrl: 'dist/index.d.ts',
  'agentrl-testing': 'dist/testing.d.ts',
  'agentrl-testing-conformance': 'dist/testing/conformance.d.ts',
  'agentrl-adapters-local': 'dist/adapters/local.d.ts',
  'agentrl-adapters-docker': 'dist/adapters/docker.d.ts',
  'agentrl-adapters-remote': 'dist/adapters/remote.d.ts',
  'agentrl-adapters-isolated-vm': 'dist/adapters/isolated-vm.d.ts',
  'agentrl-otel': 'dist/otel.d.ts',
};
const base = ExtractorConfig.loadFile(join(root, 'api-extractor.json'));
let failed = false;
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
  const result = Extractor.invoke(config, { localBuild: local, showVerboseMessages: false, messageCallback: (m) => { if (m.logLevel === 'warning' && !m.text.includes('TSDoc')) m.logLevel = 'none'; } });
  if (result.apiReportChanged && !local) {
    console.error(`api-report: the public API of ${name} changed; run \`npm run build && npm run api:update\` and commit docs/api/${name}.api.md`);
    failed = true;
  } else if (!result.succeeded && !local) {
    console.error(`api-report: ${name}: ${result.errorCount} error(s)`);
    failed = true;
  }
}
if (failed) process.exit(1);
console.log(local ? 'api-report: updated docs/api/' : 'api-report: public API matches docs/api/');
