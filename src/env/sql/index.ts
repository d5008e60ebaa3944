export type { SqlSource, SqlStatus, SqlQueryResult, SqlQueryRequest, SqlExecutor } from './types.js';
export { checkSql, READ_ONLY_PRAGMAS, MAX_SQL_CHARS, type CheckSqlOptions } from './guard.js';
export { readSchema } from './native.js';
export { sqlQueryPool, SQL_RUNTIME_ALLOWANCE_BYTES, type SqlQueryPool, type SqlQueryPoolOptions, type SqlQueryPoolStats } from './query-pool.js';
export { formatTable, formatCell, MAX_CELL_CHARS } from './format-table.js';
export { resultsMatch, hasOrderBy, type CompareOptions } from './compare-results.js';
export { extractFinalSql } from './extract-sql.js';
export { sqlAgent, EXECUTE_SQL_TOOL, SQL_SYSTEM_PROMPT, type SqlAgentOptions } from './sql-env.js';
