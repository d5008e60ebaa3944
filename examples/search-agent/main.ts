/**
 * The search-agent job on the embedded CPU backend, end to end (≤ 10 minutes on 2 cores):
 * 1. loads the shipped cold-start SFT checkpoint and evaluates it on held-out questions;
 * 2. runs RL (PPO 0.8 / 1.28, groups of 8, exact-match reward, passages masked), printing reward per step;
 * 3. evaluates again with the same questions and sampling settings, and prints the before/after table.
 *
 *   npm run search-agent
 *   npm run search-agent -- --steps 5 --problems 16     (a quick look)
 * Regenerate the checkpoint with `npm run search-agent:sft`; swap the backend in backend.ts.
 */
import { runAgentJob } from '../shared/agent-job.js';
import { makeBackend } from './backend.js';
import { PATHS } from './config.js';
import { EVAL_TABLE, runEval } from './eval.js';
import { runRl } from './train.js';

await runAgentJob({
  name: 'search-agent',
  paths: PATHS,
  toolCalls: 'searches',
  // --retriever <url>: a Search-R1-compatible /retrieve endpoint instead of the embedded BM25 index.
  extraOptions: ['retriever'],
  extra: (v) => (v['retriever'] ? { retrieverUrl: v['retriever'] } : {}),
  makeBackend,
  runEval,
  runRl,
  table: EVAL_TABLE,
});
