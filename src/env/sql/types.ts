/**
 * Vocabulary of the SQL environment: where a database comes from, one query's result, and the executor contract.
 */

/** A SQLite database: the bytes of a database file (opened as a private in-memory copy) or a file path (opened read-only). */
export type SqlSource = Uint8Array | string;

/**
 * Outcome class of one query.
 * - `ok`: rows returned. `error`: SQLite rejected or failed the query (syntax, unknown column …).
 * - `refused`: not allowed here (a write, several statements, ATTACH/DETACH, a PRAGMA that is not a plain read).
 * - `timeout`: killed at its deadline. `memory`: ran out of the executor's memory limit (the allocation failed, or the
 *   query process died of it and was replaced). `worker_error`: the query process died for another reason.
 */
export type SqlStatus = 'ok' | 'error' | 'refused' | 'timeout' | 'memory' | 'worker_error';

/** Result of one query. Values are JS numbers (INTEGER and REAL alike; `1` equals `1.0`), strings, `null` or `Uint8Array` (BLOB). */
export interface SqlQueryResult {
  /** `ok`, or why the query gave no rows (see {@link SqlStatus}). */
  readonly status: SqlStatus;
  /** Column names in select order (duplicates kept). Empty unless `ok`. */
  readonly columns: readonly string[];
  /** Rows as arrays in column order, at most the request's `maxRows`. Empty unless `ok`. */
  readonly rows: readonly (readonly unknown[])[];
  /** True when the query had more rows than `maxRows`. */
  readonly truncated: boolean;
  /** SQLite's message or the refusal reason, when not `ok`. */
  readonly error?: string;
  /** Wall time of the query in ms (queueing excluded). */
  readonly wallMs: number;
}

/** One query request. */
export interface SqlQueryRequest {
  /** The SQL text (one read-only statement). */
  readonly sql: string;
  /** Rows to return at most. @default the executor's `maxRows` */
  readonly maxRows?: number;
  /** Deadline in ms, after which the query process is killed. @default the executor's `timeoutMs` */
  readonly timeoutMs?: number;
}

/**
 * Runs read-only queries against one database. `query` always resolves for model mistakes and runaway queries
 * (see {@link SqlStatus}); it rejects on abort (with the signal's reason) and after `close()`.
 */
export interface SqlExecutor {
  /** Runs one read-only query; resolves with rows or the reason it failed (model mistakes, timeouts, oversized results); rejects on abort and after `close()`. */
  query(req: SqlQueryRequest, signal?: AbortSignal): Promise<SqlQueryResult>;
  /** Kills every query process. Idempotent. */
  close(): Promise<void>;
}
