import { describe, expect, it } from 'vitest';
import { extractFinalSql } from '../../../src/env/sql/index.js';

describe('extractFinalSql', () => {
  it('takes the last ```sql block, <sql> or <solution>, by position', () => {
    expect(extractFinalSql('try ```sql\nSELECT 1;\n``` then ```sql\nSELECT 2\n```')).toBe('SELECT 2');
    expect(extractFinalSql('```sql\nSELECT 1\n``` final: <sql>SELECT 3</sql>')).toBe('SELECT 3');
    expect(extractFinalSql('<solution> SELECT name FROM country; </solution>')).toBe('SELECT name FROM country');
    expect(extractFinalSql('```SQL\nSELECT 4')).toBe('SELECT 4'); // unclosed fence at the very end
  });

  it('returns undefined when there is no tagged SQL', () => {
    expect(extractFinalSql('SELECT 1')).toBeUndefined();
    expect(extractFinalSql('```\nSELECT 1\n```')).toBeUndefined();
    expect(extractFinalSql('```sql\n;\n```')).toBeUndefined();
  });
});
