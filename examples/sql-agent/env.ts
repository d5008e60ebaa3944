/** The example's environment and reward: `execute_sql` over the shipped database, execution-match reward. */
import { readFileSync } from 'node:fs';
import { sqlAgent, sqlExecutionMatch, type Environment, type Reward } from 'agentrl';
import { MAX_TURNS, PATHS, QUERY_TIMEOUT_MS, ROW_LIMIT } from './config.js';

/** The database bytes (read once per call; queries run on read-only copies in child processes). */
export function loadDatabase(): Uint8Array {
  return readFileSync(PATHS.database);
}

/**
 * Tool mode: `execute_sql` with one exploratory query, then the final ```sql block. No system prompt and no schema
 * in the prompt (the tiny model learns the table from its cold start; a real model should see the schema: drop
 * `formatQuestion` to get `sqlAgent`'s default, which shows it).
 */
export function sqlEnv(database: Uint8Array): Environment {
  return sqlAgent({ database, maxTurns: MAX_TURNS, rowLimit: ROW_LIMIT, timeoutMs: QUERY_TIMEOUT_MS, systemPrompt: null, formatQuestion: (e) => e.question });
}

/** Reward: execution match of the final ```sql block against the gold SQL, 1 / 0. Call `close()` when done. */
export function sqlReward(database: Uint8Array): Reward & { close(): Promise<void> } {
  return sqlExecutionMatch({ database, timeoutMs: QUERY_TIMEOUT_MS, correct: 1, wrong: 0 });
}
