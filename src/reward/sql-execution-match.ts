import type { Example } from '../types/example.js';
import type { RewardResult } from '../types/reward.js';
import type { Trajectory } from '../types/trajectory.js';
import type { Reward } from '../types/reward.js';
import { SqlDatabaseError } from '../errors/index.js';
import { extractFinalSql } from '../env/sql/extract-sql.js';
import { hasOrderBy, resultsMatch, type CompareOptions } from '../env/sql/compare-results.js';
import { sqlQueryPool } from '../env/sql/query-pool.js';
import type { SqlExecutor, SqlQueryResult, SqlSource } from '../env/sql/types.js';
import { answerOf, type EndingOptions } from './ending.js';
import { checkOptions, optionKeys } from '../util/check-options.js';

const SQL_MATCH_OPTIONS = optionKeys<SqlExecutionMatchOptions>({
  database: true,
  timeoutMs: true,
  maxRows: true,
  workers: true,
  correct: true,
  wrong: true,
  invalidFormat: true,
  mode: true,
  floatDecimals: true,
  scoreTruncated: true,
});

/** Options of {@link sqlExecutionMatch}. */
export interface SqlExecutionMatchOptions extends Omit<CompareOptions, 'orderMatters'>, EndingOptions {
  /** Database to run both queries on: bytes, a path, or an existing executor (e.g. shared with the environment). */
  readonly database: SqlSource | SqlExecutor;
  /** Deadline per query in ms (BIRD uses 30 s). @default 30_000 */
  readonly timeoutMs?: number;
  /** Rows fetched per query; a predicted result with more rows is wrong, a gold one is dropped. @default 100_000 */
  readonly maxRows?: number;
  /** Query processes when `database` is a source. @default 1 */
  readonly workers?: number;
  /** Reward of a match. @default 1 */
  readonly correct?: number;
  /** Reward of a mismatch, a failing query, or no final SQL. @default 0 */
  readonly wrong?: number;
  /**
   * Reward when the reply has no final SQL block or the trajectory did not end validly (`invalid`, cut by a token
   * budget, no answer; SkyRL-SQL uses −1). @default `wrong`
   */
  readonly invalidFormat?: number;
}

/**
 * Execution match for text-to-SQL: runs the gold SQL (`example.answer`) and the model's final SQL
 * ({@link extractFinalSql} of `trajectory.finalText`: last ```sql block, `<sql>` or `<solution>`) read-only with a
 * deadline, and compares the results with {@link resultsMatch} (default: Spider test-suite rules — bags of rows, order
 * only when the gold SQL has ORDER BY, column permutations allowed; numbers rounded to `floatDecimals` = 6 places).
 * Only a trajectory that ended validly is scored (the shared rule, {@link answerOf}; the SQL is searched after the
 * last `</think>`): otherwise `invalidFormat` with `validFormat: false` (`invalid_format`, `truncated` or `no_answer`).
 * Outcomes: match → `correct`; mismatch, SQL error or refusal → `wrong` (`unparseable_prediction` for the latter two);
 * predicted query past its deadline → `wrong` (`timeout`); no final SQL → `invalidFormat` (`no_answer`).
 * A gold query that fails, times out or exceeds `maxRows` drops the sample (`gold_unparseable`, `drop: true`).
 * Gold results are cached per SQL text (up to 1,000). Call `close()` to stop the query processes it started.
 * @throws ConfigError for invalid options (via the pool); the reward rejects with SqlDatabaseError if the database cannot be opened.
 */
export function sqlExecutionMatch(opts: SqlExecutionMatchOptions): Reward & { close(): Promise<void> } {
  checkOptions('sqlExecutionMatch options', SQL_MATCH_OPTIONS, opts);
  const correct = opts.correct ?? 1;
  const wrong = opts.wrong ?? 0;
  const invalidFormat = opts.invalidFormat ?? wrong;
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const maxRows = opts.maxRows ?? 100_000;
  const shared = typeof opts.database === 'object' && !(opts.database instanceof Uint8Array);
  const executor: SqlExecutor = shared
    ? (opts.database as SqlExecutor)
    : sqlQueryPool({ database: opts.database as SqlSource, workers: opts.workers ?? 1, timeoutMs, maxRows });
  const goldCache = new Map<string, Promise<SqlQueryResult>>();
  const compare: CompareOptions = {
    ...(opts.mode !== undefined ? { mode: opts.mode } : {}),
    ...(opts.floatDecimals !== undefined ? { floatDecimals: opts.floatDecimals } : {}),
  };

  function gold(sql: string): Promise<SqlQueryResult> {
    let p = goldCache.get(sql);
    if (!p) {
      p = executor.query({ sql, timeoutMs, maxRows });
      if (goldCache.size >= 1000) goldCache.delete(goldCache.keys().next().value as string);
      goldCache.set(sql, p);
      p.catch(() => goldCache.delete(sql));
    }
    return p;
  }

  const reward = async (trajectory: Trajectory, example: Example): Promise<RewardResult> => {
    const goldSql = example.answer;
    const g = await gold(goldSql);
    if (g.status === 'worker_error') throw new SqlDatabaseError(`gold query of ${example.id} crashed its process: ${g.error ?? ''}`);
    if (g.status !== 'ok' || g.truncated) {
      return { reward: wrong, correct: false, validFormat: false, failure: 'gold_unparseable', drop: true };
    }
    const ending = answerOf(trajectory, opts);
    if (!ending.scorable) return { reward: invalidFormat, correct: false, validFormat: false, failure: ending.failure };
    const predSql = extractFinalSql(ending.text);
    if (predSql === undefined) return { reward: invalidFormat, correct: false, validFormat: false, failure: 'no_answer' };
    const p = await executor.query({ sql: predSql, timeoutMs, maxRows });
    if (p.status === 'timeout') return { reward: wrong, correct: false, validFormat: true, answer: predSql, failure: 'timeout' };
    if (p.status !== 'ok') return { reward: wrong, correct: false, validFormat: true, answer: predSql, failure: 'unparseable_prediction' };
    const ok = !p.truncated && resultsMatch(g.rows, p.rows, { ...compare, orderMatters: hasOrderBy(goldSql) });
    return { reward: ok ? correct : wrong, correct: ok, validFormat: true, answer: predSql };
  };
  return Object.assign(reward, {
    close: async () => {
      if (!shared) await executor.close();
    },
  });
}
