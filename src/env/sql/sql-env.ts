import type { Environment, StepOutcome, ToolContext } from '../types.js';
import type { Example } from '../../types/example.js';
import type { ExecResult } from '../../types/exec-result.js';
import type { Message, ToolCall, ToolDefinition } from '../../types/message.js';
import type { ParsedAction } from '../../types/action.js';
import { ConfigError, type ConfigIssue } from '../../errors/index.js';
import { truncateHead } from '../search/fit-budget.js';
import { formatTable } from './format-table.js';
import { readSchema } from './native.js';
import { sqlQueryPool, type SqlQueryPool, type SqlQueryPoolOptions } from './query-pool.js';
import type { SqlQueryResult, SqlSource } from './types.js';
import { checkOptions, optionKeys } from '../../util/check-options.js';

const SQL_AGENT_OPTIONS = optionKeys<SqlAgentOptions>({
  database: true,
  maxTurns: true,
  rowLimit: true,
  timeoutMs: true,
  workers: true,
  memoryLimitBytes: true,
  schema: true,
  systemPrompt: true,
  formatQuestion: true,
});

/** The `execute_sql` tool: one string argument, a single read-only SQLite statement. */
export const EXECUTE_SQL_TOOL: ToolDefinition = {
  type: 'function',
  function: {
    name: 'execute_sql',
    description: 'Run one read-only SQLite query (SELECT) against the database and return the resulting rows.',
    parameters: {
      type: 'object',
      properties: { sql: { type: 'string', description: 'A single SQLite SELECT statement.' } },
      required: ['sql'],
    },
  },
};

/** System prompt of the SQL agent (SkyRL-SQL's task, in our words, with native tool calls). */
export const SQL_SYSTEM_PROMPT = [
  'You write SQLite queries that answer questions about a database. Think step by step. You may explore the',
  'data with the execute_sql tool (one read-only query per call; it returns the rows or the error). When you',
  'are sure, reply without a tool call and give the final query in a ```sql fenced block; its result is',
  'compared with the correct one, so return exactly the columns the question asks for.',
].join('\n');

/** Options of {@link sqlAgent}. */
export interface SqlAgentOptions {
  /** The database (bytes of a SQLite file, or a path opened read-only). */
  readonly database: SqlSource;
  /**
   * Assistant turns per episode, the final answer included (SkyRL-SQL `max_turns`): at most `maxTurns − 1` queries
   * run, each observation says how many turns are left, and a query attempted on the last turn ends the episode
   * (`env_done`) unrun. @default 5
   */
  readonly maxTurns?: number;
  /** Rows shown per query (SkyRL-SQL shows 50); the observation also fits the tool-response token budget. @default 50 */
  readonly rowLimit?: number;
  /** Per-query deadline in ms; the query process is SIGKILLed at it. @default 5_000 */
  readonly timeoutMs?: number;
  /** Query processes. @default 2 */
  readonly workers?: number;
  /** Memory one query may use, in bytes (see {@link SqlQueryPoolOptions.memoryLimitBytes}); 0 for no limit. @default 268_435_456 */
  readonly memoryLimitBytes?: number;
  /** Schema text shown to the model. @default the database's CREATE statements ({@link readSchema}) */
  readonly schema?: string;
  /** System prompt; `null` for none. @default SQL_SYSTEM_PROMPT */
  readonly systemPrompt?: string | null;
  /** Builds the user message. @default the schema in a ```sql block, then `Question: …` */
  readonly formatQuestion?: (example: Example, schema: string) => string;
}

function validate(o: SqlAgentOptions): void {
  const issues: ConfigIssue[] = [];
  if (typeof o.database !== 'string' && !(o.database instanceof Uint8Array)) {
    issues.push({ path: 'database', message: 'expected a file path or the bytes of a SQLite file' });
  }
  const int = (path: string, v: number | undefined, min: number) => {
    if (v !== undefined && (!Number.isInteger(v) || v < min)) issues.push({ path, message: `expected an integer ≥ ${min}, got ${v}` });
  };
  int('maxTurns', o.maxTurns, 2);
  int('rowLimit', o.rowLimit, 1);
  int('timeoutMs', o.timeoutMs, 1);
  int('workers', o.workers, 1);
  int('memoryLimitBytes', o.memoryLimitBytes, 0);
  if (issues.length) throw new ConfigError('sqlAgent options', issues);
}

const toExec = (r: SqlQueryResult, text: string): ExecResult => ({
  status: r.status === 'ok' || r.status === 'timeout' || r.status === 'memory' ? r.status : r.status === 'worker_error' ? 'sandbox_error' : 'error',
  exitCode: r.status === 'ok' ? 0 : null,
  stdout: r.status === 'ok' ? text : '',
  stderr: r.status === 'ok' ? '' : text,
  truncated: r.truncated,
  wallMs: r.wallMs,
});

function toolMessage(call: ToolCall, content: string): Message {
  return call.id ? { role: 'tool', name: call.function.name, content, toolCallId: call.id } : { role: 'tool', name: call.function.name, content };
}

/**
 * A text-to-SQL agent environment (after SkyRL-SQL) with a native `execute_sql` tool ({@link EXECUTE_SQL_TOOL}).
 * Queries run in a {@link sqlQueryPool} of child processes holding read-only copies of the database, so nothing
 * an episode does persists or leaks into another; a runaway query is killed at `timeoutMs`. Observations are
 * {@link formatTable} tables (≤ `rowLimit` rows, within `ctx.maxToolResponseTokens`) or `Error: …` lines, followed by
 * `(k turns left)`; `exec` carries a sandbox-style result for the `sandbox/*` metrics. Score with {@link sqlExecutionMatch}.
 * The schema is read synchronously here, so a bad database fails at construction.
 * @throws ConfigError for invalid options; SqlDatabaseError when the database cannot be opened.
 */
export function sqlAgent(opts: SqlAgentOptions): Environment & { readonly schema: string } {
  checkOptions('sqlAgent options', SQL_AGENT_OPTIONS, opts);
  validate(opts);
  const maxTurns = opts.maxTurns ?? 5;
  const rowLimit = opts.rowLimit ?? 50;
  const timeoutMs = opts.timeoutMs ?? 5_000;
  const schema = opts.schema ?? readSchema(opts.database);
  const systemPrompt = opts.systemPrompt === undefined ? SQL_SYSTEM_PROMPT : opts.systemPrompt;
  const formatQuestion = opts.formatQuestion ?? ((e: Example, s: string) => `Database schema:\n\`\`\`sql\n${s}\n\`\`\`\n\nQuestion: ${e.question}`);
  let pool: SqlQueryPool | undefined;
  const getPool = () =>
    (pool ??= sqlQueryPool({
      database: opts.database,
      workers: opts.workers ?? 2,
      timeoutMs,
      maxRows: rowLimit,
      ...(opts.memoryLimitBytes === undefined ? {} : { memoryLimitBytes: opts.memoryLimitBytes }),
    }));

  return {
    name: 'sql',
    tools: [EXECUTE_SQL_TOOL],
    schema,
    initialMessages(example: Example): Message[] {
      const msgs: Message[] = [];
      if (systemPrompt) msgs.push({ role: 'system', content: systemPrompt });
      msgs.push({ role: 'user', content: formatQuestion(example, schema) });
      return msgs;
    },
    async step(action: ParsedAction, ctx: ToolContext): Promise<StepOutcome> {
      if (action.kind !== 'tool') return { done: true, reason: action.kind === 'answer' ? 'answer' : 'invalid' };
      // This is assistant turn ctx.toolCalls + 1; the last turn is kept for the answer.
      const turnsLeft = maxTurns - (ctx.toolCalls + 1);
      if (turnsLeft <= 0) return { done: true, reason: 'env_done' };
      const reminder = `\n(${turnsLeft} turn${turnsLeft === 1 ? '' : 's'} left${turnsLeft === 1 ? ': give the final query now' : ''})`;
      const budget = ctx.maxToolResponseTokens;
      const reply = (r: SqlQueryResult, body: string): StepOutcome => {
        const reminderTokens = ctx.countTokens(reminder);
        const text = truncateHead(body, Math.max(0, budget - reminderTokens), ctx.countTokens) + reminder;
        const content = ctx.countTokens(text) <= budget ? text : truncateHead(text, budget, ctx.countTokens);
        return { done: false, observation: [toolMessage(action.call, content)], exec: toExec(r, content) };
      };
      const mistake = (error: string) => reply({ status: 'error', columns: [], rows: [], truncated: false, wallMs: 0, error }, `Error: ${error}`);
      const name = action.call.function.name;
      if (name !== EXECUTE_SQL_TOOL.function.name) return mistake(`unknown tool "${name}". The only tool is "execute_sql" with {"sql": "..."}.`);
      const sql = action.call.function.arguments['sql'];
      if (typeof sql !== 'string' || sql.trim() === '') return mistake('execute_sql expects {"sql": "<one SELECT statement>"}.');
      let r: SqlQueryResult;
      try {
        r = await getPool().query({ sql, timeoutMs, maxRows: rowLimit }, ctx.signal);
      } catch (err) {
        if (ctx.signal.aborted) throw err;
        r = { status: 'worker_error', columns: [], rows: [], truncated: false, wallMs: 0, error: (err as Error).message };
      }
      switch (r.status) {
        case 'ok': {
          const reminderTokens = ctx.countTokens(reminder);
          const table = formatTable(r, { rowLimit, maxTokens: Math.max(0, budget - reminderTokens), countTokens: ctx.countTokens });
          return reply(r, table);
        }
        case 'timeout':
          return reply(r, `Error: the query did not finish within ${timeoutMs} ms and was stopped.`);
        case 'memory':
          return reply(r, 'Error: the query ran out of memory and was stopped.');
        case 'refused':
          return reply(r, `Error: query refused: ${r.error ?? 'not allowed'}.`);
        case 'worker_error':
          return reply(r, `Error: the database service failed (${r.error ?? 'unknown fault'}).`);
        case 'error':
          return reply(r, `Error: ${r.error ?? 'query failed'}`);
      }
    },
    async close(): Promise<void> {
      await pool?.close();
      pool = undefined;
    },
  };
}
