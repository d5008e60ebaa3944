/**
 * Regenerates the capability table of docs/engines.md from the engine profiles (src/backend/tinker/engines/),
 * between its markers. Run: `npx tsx scripts/engines-table.ts` (`--check`: exit 1 when the docs are out of date).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { withEngineTable } from '../src/backend/tinker/engines/table.js';

const path = fileURLToPath(new URL('../docs/engines.md', import.meta.url));
const doc = readFileSync(path, 'utf8');
const next = withEngineTable(doc);
if (process.argv.includes('--check')) {
  if (next !== doc) {
    console.error('docs/engines.md is out of date: run npx tsx scripts/engines-table.ts');
    process.exit(1);
  }
} else if (next !== doc) {
  writeFileSync(path, next);
  console.log('docs/engines.md: table regenerated');
}
