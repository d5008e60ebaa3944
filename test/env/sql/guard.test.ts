import { describe, expect, it } from 'vitest';
import { checkSql } from '../../../src/env/sql/index.js';

describe('checkSql', () => {
  it('lets reads through, comments and table-info pragmas included', () => {
    for (const sql of ['SELECT 1', '  -- why\n/* c */ select * from country;', 'WITH x AS (SELECT 1) SELECT * FROM x', 'PRAGMA table_info(country)', 'pragma main.index_list(country);']) {
      expect(checkSql(sql), sql).toBeUndefined();
    }
  });

  it('refuses ATTACH/DETACH, PRAGMA assignments and other PRAGMAs, and empty input', () => {
    // Hazard: sqlite3_stmt_readonly() is true for ATTACH and for `PRAGMA query_only = 0`, so the read-only check alone misses them.
    for (const sql of ["ATTACH 'other.db' AS o", '/* x */ detach o', 'PRAGMA query_only = 0', 'PRAGMA hard_heap_limit=1', 'PRAGMA writable_schema', 'pragma table_info = 1', '', ' ; ', '-- only a comment']) {
      expect(checkSql(sql), sql).toBeTypeOf('string');
    }
  });
});
