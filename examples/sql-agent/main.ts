/**
 * The sql-agent job on the embedded CPU backend, end to end (≤ 10 minutes on 2 cores):
 * 1. loads the shipped cold-start SFT checkpoint and evaluates it on held-out questions;
 * 2. runs RL (PPO 0.8 / 1.28, groups of 8, execution-match reward, query results masked), printing reward per step;
 * 3. evaluates again with the same questions and sampling settings, and prints the before/after table.
 *
 *   npm run sql-agent
 *   npm run sql-agent -- --steps 5 --problems 16     (a quick look)
 * Regenerate the checkpoint with `npm run sql-agent:sft`; swap the backend in backend.ts.
 */
import { runAgentJob } from '../shared/agent-job.js';
import { makeBackend } from './backend.js';
import { PATHS } from './config.js';
import { EVAL_TABLE, runEval } from './eval.js';
import { runRl } from './train.js';

await runAgentJob({ name: 'sql-agent', paths: PATHS, toolCalls: 'queries', makeBackend, runEval, runRl, table: EVAL_TABLE });
