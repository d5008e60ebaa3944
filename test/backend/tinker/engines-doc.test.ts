import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { renderEngineTable, TABLE_END, TABLE_START, withEngineTable } from '../../../src/backend/tinker/engines/table.js';
import { ENGINE_NAMES } from '../../../src/backend/tinker/engines/profiles.js';

const doc = readFileSync(fileURLToPath(new URL('../../../docs/engines.md', import.meta.url)), 'utf8');

describe('docs/engines.md', () => {
  it('carries the capability table generated from the engine profiles (regenerate: npx tsx scripts/engines-table.ts)', () => {
    expect(withEngineTable(doc)).toBe(doc);
  });

  it('the table has one column per engine and a verdict in every cell', () => {
    const table = renderEngineTable();
    const header = table.split('\n')[0]!;
    expect(header).toBe(`| option | ${ENGINE_NAMES.join(' | ')} |`);
    const rows = table.split('\n').filter((l) => l.startsWith('| ') && !l.startsWith('| option'));
    expect(rows.length).toBeGreaterThan(10);
    for (const r of rows)
      expect(
        r
          .split(' | ')
          .slice(1)
          .map((c) => c.replace(/ \|$/, '').trim())
          .every((c) => ['exact', 'adapted', 'refused'].includes(c)),
      ).toBe(true);
    expect(doc.indexOf(TABLE_START)).toBeLessThan(doc.indexOf(TABLE_END));
  });
});
