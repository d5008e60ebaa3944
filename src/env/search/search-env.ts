import type { Environment, StepOutcome, ToolContext } from '../types.js';
import type { Example } from '../../types/example.js';
import type { ExecResult } from '../../types/exec-result.js';
import type { Message, ToolCall, ToolDefinition } from '../../types/message.js';
import type { ParsedAction } from '../../types/action.js';
import { ConfigError, type ConfigIssue } from '../../errors/index.js';
import { fitCount, truncateHead } from './fit-budget.js';
import { formatPassages } from './format-passages.js';
import type { Retriever } from './types.js';
import { checkOptions, optionKeys } from '../../util/check-options.js';

const SEARCH_OPTIONS = optionKeys<SearchEnvOptions>({
  retriever: true,
  topK: true,
  maxCalls: true,
  maxQueryChars: true,
  systemPrompt: true,
  formatQuestion: true,
});

/** The `search` tool: one string argument, the query. */
export const SEARCH_TOOL: ToolDefinition = {
  type: 'function',
  function: {
    name: 'search',
    description: 'Search an encyclopedia and return the most relevant passages for a query.',
    parameters: {
      type: 'object',
      properties: { query: { type: 'string', description: 'Keywords or a short question.' } },
      required: ['query'],
    },
  },
};

/** System prompt for retrieval-augmented QA (Search-R1's instructions, in our words, with native tool calls). */
export const SEARCH_SYSTEM_PROMPT = [
  'Answer the question. Think step by step. When you lack a fact, call the search tool with a short query;',
  'it returns the top passages of an encyclopedia. You may search several times, one call per turn, and',
  'refine your query if the passages do not help. When you know the answer, reply without a tool call and',
  'put only the short answer between <answer> and </answer>, for example <answer> Paris </answer>.',
].join('\n');

/** Options of {@link search}. */
export interface SearchEnvOptions {
  /** Where passages come from: {@link bm25Retriever}, {@link httpRetriever}, or your own. */
  readonly retriever: Retriever;
  /** Passages per query. @default 3 */
  readonly topK?: number;
  /**
   * Search calls per trajectory. The observation of the last allowed call says so; a call beyond it is not run
   * and ends the episode (`env_done`). The engine's `budgets.maxToolCalls` applies too. @default no env limit
   */
  readonly maxCalls?: number;
  /** Queries longer than this are cut (characters). @default 500 */
  readonly maxQueryChars?: number;
  /** System prompt; `null` for none. @default SEARCH_SYSTEM_PROMPT */
  readonly systemPrompt?: string | null;
  /** Builds the user message from an example. @default `Question: ${question}` */
  readonly formatQuestion?: (example: Example) => string;
}

function validate(opts: SearchEnvOptions): void {
  const issues: ConfigIssue[] = [];
  if (typeof opts.retriever?.search !== 'function') issues.push({ path: 'retriever', message: 'expected an object with search()' });
  const posInt = (path: string, v: number | undefined, min: number) => {
    if (v !== undefined && (!Number.isInteger(v) || v < min)) issues.push({ path, message: `expected an integer ≥ ${min}, got ${v}` });
  };
  posInt('topK', opts.topK, 1);
  if (opts.maxCalls !== Infinity) posInt('maxCalls', opts.maxCalls, 1);
  posInt('maxQueryChars', opts.maxQueryChars, 1);
  if (issues.length) throw new ConfigError('search options', issues);
}

function toolMessage(call: ToolCall, content: string): Message {
  return call.id ? { role: 'tool', name: call.function.name, content, toolCallId: call.id } : { role: 'tool', name: call.function.name, content };
}

function execResult(status: ExecResult['status'], stdout: string, wallMs: number, truncated = false): ExecResult {
  return { status, exitCode: status === 'ok' ? 0 : null, stdout, stderr: '', truncated, wallMs };
}

/**
 * A Search-R1-style environment with a native `search` tool ({@link SEARCH_TOOL}).
 * Each call retrieves `topK` passages and shows them as `Doc i (Title: …) text` lines, keeping whole passages
 * from the top while they fit `ctx.maxToolResponseTokens` (then cutting the first one's text if even it does not fit).
 * Model mistakes (unknown tool, missing or empty `query`) and retriever faults become `Error: …` observations;
 * `exec` carries a sandbox-style result (`ok` / `error` / `sandbox_error`, wall ms) for the `sandbox/*` metrics.
 * Score with {@link exactMatch}, which reads the last `<answer>…</answer>`.
 * @throws ConfigError for invalid options (listing every issue).
 */
export function search(opts: SearchEnvOptions): Environment {
  checkOptions('search options', SEARCH_OPTIONS, opts);
  validate(opts);
  const topK = opts.topK ?? 3;
  const maxCalls = opts.maxCalls ?? Infinity;
  const maxQueryChars = opts.maxQueryChars ?? 500;
  const systemPrompt = opts.systemPrompt === undefined ? SEARCH_SYSTEM_PROMPT : opts.systemPrompt;
  const formatQuestion = opts.formatQuestion ?? ((e: Example) => `Question: ${e.question}`);
  return {
    name: 'search',
    tools: [SEARCH_TOOL],
    initialMessages(example: Example): Message[] {
      const msgs: Message[] = [];
      if (systemPrompt) msgs.push({ role: 'system', content: systemPrompt });
      msgs.push({ role: 'user', content: formatQuestion(example) });
      return msgs;
    },
    async step(action: ParsedAction, ctx: ToolContext): Promise<StepOutcome> {
      if (action.kind !== 'tool') return { done: true, reason: action.kind === 'answer' ? 'answer' : 'invalid' };
      if (ctx.toolCalls >= maxCalls) return { done: true, reason: 'env_done' };
      const call = action.call;
      const fail = (text: string): StepOutcome => ({
        done: false,
        observation: [toolMessage(call, truncateHead(text, ctx.maxToolResponseTokens, ctx.countTokens))],
        exec: execResult('error', text, 0),
      });
      if (call.function.name !== SEARCH_TOOL.function.name) {
        return fail(`Error: unknown tool "${call.function.name}". The only tool is "search" with {"query": "..."}.`);
      }
      const raw = call.function.arguments['query'];
      if (typeof raw !== 'string' || raw.trim() === '') {
        return fail('Error: search expects {"query": "<non-empty text>"}.');
      }
      const query = raw.trim().slice(0, maxQueryChars);
      const t0 = performance.now();
      let text: string;
      let truncated = false;
      try {
        const [passages = []] = await opts.retriever.search([query], topK, ctx.signal);
        const budget = ctx.maxToolResponseTokens;
        const last = ctx.toolCalls + 1 === maxCalls ? '\n(That was your last search: give your answer now.)' : '';
        const render = (n: number) => formatPassages(passages.slice(0, n)) + (n < passages.length ? '\n[… more passages cut …]' : '') + last;
        const n = passages.length === 0 ? 0 : fitCount(passages.length, render, budget, ctx.countTokens);
        truncated = n < passages.length;
        text = n > 0 || passages.length === 0 ? render(n) : truncateHead(render(1), budget, ctx.countTokens);
      } catch (err) {
        if (ctx.signal.aborted) throw err;
        const msg = `Error: the search service failed (${err instanceof Error ? err.message : String(err)}).`;
        const wallMs = performance.now() - t0;
        return {
          done: false,
          observation: [toolMessage(call, truncateHead(msg, ctx.maxToolResponseTokens, ctx.countTokens))],
          exec: execResult('sandbox_error', msg, wallMs),
        };
      }
      const wallMs = performance.now() - t0;
      return { done: false, observation: [toolMessage(call, text)], exec: execResult('ok', text, wallMs, truncated) };
    },
    close: async () => {
      await opts.retriever.close?.();
    },
  };
}
