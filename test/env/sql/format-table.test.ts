import { describe, expect, it } from 'vitest';
import { formatCell, formatTable } from '../../../src/env/sql/index.js';
import { countTokens } from '../search/make-ctx.js';

describe('formatTable', () => {
  const big = { rowLimit: 50, maxTokens: 10_000, countTokens };
  it('prints a header, rows and a row count', () => {
    expect(
      formatTable(
        {
          columns: ['name', 'population'],
          rows: [
            ['China', 1392730000],
            ['India', 1352617328],
          ],
          truncated: false,
        },
        big,
      ),
    ).toBe('name | population\nChina | 1392730000\nIndia | 1352617328\n(2 rows)');
    expect(formatTable({ columns: ['n'], rows: [], truncated: false }, big)).toBe('n\n(0 rows)');
  });

  it('caps rows at rowLimit and at the token budget, saying so', () => {
    const rows = Array.from({ length: 100 }, (_, i) => [`country ${i}`, i]);
    const capped = formatTable({ columns: ['a', 'b'], rows, truncated: false }, { ...big, rowLimit: 3 });
    expect(capped.split('\n')).toHaveLength(5);
    expect(capped).toMatch(/showing the first 3 rows; the query returned more/);
    const budgeted = formatTable({ columns: ['a', 'b'], rows, truncated: true }, { rowLimit: 100, maxTokens: 40, countTokens });
    expect(countTokens(budgeted)).toBeLessThanOrEqual(40);
    expect(budgeted).toMatch(/^a \| b\ncountry 0 \| 0\n/);
  });

  it('escapes cells: NULL, blobs, newlines, pipes, long text', () => {
    expect(formatCell(null)).toBe('NULL');
    expect(formatCell(new Uint8Array([0, 255]))).toBe("x'00ff'");
    expect(formatCell('a|b\nc')).toBe('a\\|b\\nc');
    expect(formatCell('x'.repeat(500))).toHaveLength(200);
  });
});
