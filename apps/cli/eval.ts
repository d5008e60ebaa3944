import { parseArgs } from 'node:util';
import { FAMILY_IDS, type FamilyId } from 'agentrl/internal';
import type { Sandbox } from 'agentrl/internal';
import { sandboxAdapter } from 'agentrl/internal';
import type { Environment } from 'agentrl/internal';
import { codeInterpreter } from 'agentrl/internal';
import { loadMathDataset } from 'agentrl/internal';
import { mathReward } from 'agentrl/internal';
import { evaluate } from 'agentrl/internal';
import { evalTable } from 'agentrl/internal';
import { openaiCompatibleSampler } from 'agentrl/internal';
import { AgentRLError } from 'agentrl/internal';
import { UsageError } from 'agentrl/internal';
import { parseNumberFlag } from 'agentrl/internal';
import { DEFAULT_BUDGETS, type RolloutBudgets, type RolloutSampling } from 'agentrl/internal';
import type { CliCommand, CliIo } from './registry.js';

const USAGE = `Usage: agentrl eval --sampler URL --model NAME --tokenizer DIR --data FILE [options]

Evaluates a served model (vLLM, SGLang, agentrl serve) on an environment: N candidates per problem, each a
token-level rollout sampled from token ids. Prints Average@N, Pass@N, format rate, valid tool-call rate, mean
tool calls and turns, and writes one JSON line per problem.

Required:
  --sampler <url>              vLLM / agentrl serve: the OpenAI base URL, http://HOST:PORT/v1;
                               SGLang (--flavor sglang): the server root, http://HOST:PORT
  --model <name>               the served model name (vLLM --served-model-name; not needed with --flavor sglang)
  --tokenizer <dir>            the model's Hugging Face folder: tokenizer.json, tokenizer_config.json and
                               generation_config.json (its eos_token_id list ends every turn)
  --data <file>                problems, .jsonl or .parquet with question and answer (DAPO-Math rows work)
                               (the model family — prompt format and tool-call syntax — is detected from
                               --tokenizer; see docs/models.md)

Options:
  --env <name>[,<name>]        retool: code_interpreter tool on a local sandbox, math reward (default)
                               retool-text: same problems, no tool (the text-only baseline);
                               both (retool,retool-text): one table row each, the same problems and sampling
  --n <n>                      candidates per problem, the N of Average@N and Pass@N (default 4)
  --concurrency <n>            HTTP requests in flight, and problems rolled out at once (default 32)
  --limit <n>                  only the first n problems
  --out <file>                 per-problem results, JSONL (default eval-results.jsonl; with several envs,
                               one file each: eval-results.retool.jsonl, eval-results.retool-text.jsonl)
  --flavor <vllm|sglang>       wire protocol (default vllm)
  --api-key <key>              sent as Authorization: Bearer (default $OPENAI_API_KEY)
  --temperature <x>            (default 1)
  --top-p <x>                  (default 1)
  --top-k <k>                  (default off)
  --seed <n>                   base seed; each call derives its own (default: fresh randomness)
  --template-kwargs <json>     chat-template variables, e.g. '{"enable_thinking":false}'
  --family <id>                override the detected family: qwen3, qwen3_coder, llama3, deepseek_v3,
                               gpt_oss, kimi_k2, mistral
  --system-prompt <text|none>  retool's system prompt (default: the built-in ReTool prompt)
  --max-turns <n>              assistant turns per trajectory (default ${DEFAULT_BUDGETS.maxTurns})
  --max-tool-calls <n>         tool calls per trajectory (default ${DEFAULT_BUDGETS.maxToolCalls})
  --max-turn-tokens <n>        new tokens per turn (default ${DEFAULT_BUDGETS.maxTurnTokens})
  --max-trajectory-tokens <n>  prompt + completions + observations (default ${DEFAULT_BUDGETS.maxTrajectoryTokens})
  --max-tool-response-tokens <n>  tokens of one tool result (default ${DEFAULT_BUDGETS.maxToolResponseTokens})
  --tool-timeout-ms <n>        per tool call (default 10000)
  --sandbox-workers <n>        local sandbox processes (default 4)
  --sandbox-url <url>          run code on a SandboxFusion-compatible server (e.g. agentrl sandbox-serve) instead
  --timeout-ms <n>             per HTTP request to the inference server (default 600000)

Exit codes: 0 done, 1 failure (server, sandbox, data), 2 bad usage.`;

type Values = Record<string, string | boolean | undefined>;

function num(v: Values, key: string, opts: { int?: boolean; min?: number } = {}): number | undefined {
  return parseNumberFlag(key, v[key], { ...(opts.int ? { integer: true } : {}), ...(opts.min !== undefined ? { min: opts.min } : {}) });
}

function str(v: Values, key: string): string | undefined {
  const raw = v[key];
  return typeof raw === 'string' ? raw : undefined;
}

function required(v: Values, key: string): string {
  const s = str(v, key);
  if (!s) throw new UsageError(`--${key} is required`);
  return s;
}

const OPTIONS = {
  sampler: { type: 'string' },
  model: { type: 'string' },
  tokenizer: { type: 'string' },
  data: { type: 'string' },
  env: { type: 'string' },
  n: { type: 'string' },
  concurrency: { type: 'string' },
  limit: { type: 'string' },
  out: { type: 'string' },
  flavor: { type: 'string' },
  'api-key': { type: 'string' },
  temperature: { type: 'string' },
  'top-p': { type: 'string' },
  'top-k': { type: 'string' },
  seed: { type: 'string' },
  'template-kwargs': { type: 'string' },
  family: { type: 'string' },
  'system-prompt': { type: 'string' },
  'max-turns': { type: 'string' },
  'max-tool-calls': { type: 'string' },
  'max-turn-tokens': { type: 'string' },
  'max-trajectory-tokens': { type: 'string' },
  'max-tool-response-tokens': { type: 'string' },
  'tool-timeout-ms': { type: 'string' },
  'sandbox-workers': { type: 'string' },
  'sandbox-url': { type: 'string' },
  'timeout-ms': { type: 'string' },
} as const;

/** Everything `agentrl eval` runs with, read from its arguments. */
type EnvName = 'retool' | 'retool-text';

interface EvalPlan {
  readonly envs: readonly EnvName[];
  readonly n: number;
  readonly concurrency: number;
  readonly out: string;
  readonly budgets: RolloutBudgets;
  readonly sampling: RolloutSampling;
  readonly templateKwargs?: Record<string, unknown>;
}

function plan(v: Values): EvalPlan {
  const envs = (str(v, 'env') ?? 'retool').split(',').map((e) => e.trim());
  for (const e of envs)
    if (e !== 'retool' && e !== 'retool-text') throw new UsageError(`--env must be retool, retool-text or both (comma-separated), got '${e}'`);
  if (new Set(envs).size !== envs.length) throw new UsageError(`--env names an environment twice: '${str(v, 'env')}'`);
  const flavor = str(v, 'flavor') ?? 'vllm';
  if (flavor !== 'vllm' && flavor !== 'sglang') throw new UsageError(`--flavor must be vllm or sglang, got '${flavor}'`);
  let templateKwargs: Record<string, unknown> | undefined;
  const tk = str(v, 'template-kwargs');
  if (tk !== undefined) {
    try {
      templateKwargs = JSON.parse(tk) as Record<string, unknown>;
    } catch {
      templateKwargs = undefined;
    }
    if (typeof templateKwargs !== 'object' || templateKwargs === null || Array.isArray(templateKwargs))
      throw new UsageError(`--template-kwargs expects a JSON object, got '${tk}'`);
  }
  const budget = (key: string, fallback: number) => num(v, key, { int: true, min: 1 }) ?? fallback;
  const topK = num(v, 'top-k', { int: true, min: 0 });
  const seed = num(v, 'seed', { int: true });
  return {
    envs: envs as EnvName[],
    n: num(v, 'n', { int: true, min: 1 }) ?? 4,
    concurrency: num(v, 'concurrency', { int: true, min: 1 }) ?? 32,
    out: str(v, 'out') ?? 'eval-results.jsonl',
    budgets: {
      maxTurns: budget('max-turns', DEFAULT_BUDGETS.maxTurns),
      maxToolCalls: budget('max-tool-calls', DEFAULT_BUDGETS.maxToolCalls),
      maxTurnTokens: budget('max-turn-tokens', DEFAULT_BUDGETS.maxTurnTokens),
      maxTrajectoryTokens: budget('max-trajectory-tokens', DEFAULT_BUDGETS.maxTrajectoryTokens),
      maxToolResponseTokens: budget('max-tool-response-tokens', DEFAULT_BUDGETS.maxToolResponseTokens),
    },
    sampling: {
      temperature: num(v, 'temperature', { min: 0 }) ?? 1,
      topP: num(v, 'top-p', { min: 0 }) ?? 1,
      ...(topK !== undefined ? { topK } : {}),
      ...(seed !== undefined ? { seed } : {}),
    },
    ...(templateKwargs ? { templateKwargs } : {}),
  };
}

/** The sandbox for `--env retool`: the `remote` adapter with `--sandbox-url`, else the `local` one (both from the adapter registry, loaded lazily). */
async function makeSandbox(v: Values, workers: number, timeoutMs: number): Promise<Sandbox> {
  const url = str(v, 'sandbox-url');
  if (url) return (await sandboxAdapter('remote')).create({ url });
  return (await sandboxAdapter('local')).create({ workers, timeoutMs });
}

function makeEnv(name: EnvName, v: Values, sandbox: Sandbox | undefined, toolTimeoutMs: number): Environment {
  const sp = str(v, 'system-prompt');
  const systemPrompt = sp === undefined ? undefined : sp === 'none' ? null : sp;
  if (name === 'retool') return codeInterpreter({ sandbox: sandbox!, timeoutMs: toolTimeoutMs, ...(systemPrompt !== undefined ? { systemPrompt } : {}) });
  return {
    name: 'text-only',
    tools: [],
    initialMessages: (ex) => [...(systemPrompt ? [{ role: 'system' as const, content: systemPrompt }] : []), { role: 'user' as const, content: ex.question }],
    step: async (action) => ({ done: true, reason: action.kind === 'answer' ? 'answer' : 'invalid' }),
  };
}

/** `eval-results.jsonl` → `eval-results.<env>.jsonl` (one file per environment when several run). */
function outFor(out: string, env: string): string {
  const dot = out.lastIndexOf('.');
  return dot > out.lastIndexOf('/') ? `${out.slice(0, dot)}.${env}${out.slice(dot)}` : `${out}.${env}`;
}

async function run(args: readonly string[], io: CliIo): Promise<number> {
  let values: Values;
  let p: EvalPlan;
  let toolTimeoutMs: number;
  let timeoutMs: number | undefined;
  let limit: number | undefined;
  let sandboxWorkers: number;
  try {
    ({ values } = parseArgs({ args: [...args], strict: true, allowPositionals: false, options: OPTIONS }));
    for (const key of ['sampler', 'tokenizer', 'data']) required(values, key);
    if (str(values, 'flavor') !== 'sglang') required(values, 'model');
    const family = str(values, 'family');
    if (family !== undefined && !(FAMILY_IDS as readonly string[]).includes(family))
      throw new UsageError(`--family must be one of ${FAMILY_IDS.join(', ')}, got '${family}'`);
    p = plan(values);
    toolTimeoutMs = num(values, 'tool-timeout-ms', { int: true, min: 1 }) ?? 10_000;
    timeoutMs = num(values, 'timeout-ms', { int: true, min: 1 });
    limit = num(values, 'limit', { int: true, min: 1 });
    sandboxWorkers = num(values, 'sandbox-workers', { int: true, min: 1 }) ?? 4;
  } catch (e) {
    io.stderr(`agentrl eval: ${e instanceof Error ? e.message : String(e)}\n\n${USAGE}\n`);
    return 2;
  }
  const apiKey = str(values, 'api-key');
  let sandbox: Sandbox | undefined;
  const reward = mathReward();
  try {
    const sampler = openaiCompatibleSampler({
      baseUrl: str(values, 'sampler')!,
      ...(str(values, 'model') ? { model: str(values, 'model')! } : {}),
      tokenizer: str(values, 'tokenizer')!,
      ...(str(values, 'family') ? { family: str(values, 'family') as FamilyId } : {}),
      flavor: str(values, 'flavor') === 'sglang' ? 'sglang' : 'vllm',
      concurrency: p.concurrency,
      ...(apiKey ? { apiKey } : {}),
      ...(timeoutMs !== undefined ? { timeoutMs } : {}),
    });
    const [renderer, examples] = await Promise.all([sampler.renderer(), loadMathDataset(str(values, 'data')!, limit !== undefined ? { limit } : {})]);
    if (p.envs.includes('retool')) sandbox = await makeSandbox(values, sandboxWorkers, toolTimeoutMs);
    io.stderr(
      `agentrl eval: ${examples.length} problems × ${p.n} candidates from ${sampler.baseUrl} (${str(values, 'model') ?? sampler.flavor}), env ${p.envs.join(', ')}\n`,
    );
    const table = evalTable({ labelWidth: 22, toolColumn: 'tools' });
    const rows: string[] = [];
    const outs: string[] = [];
    for (const name of p.envs) {
      const outPath = p.envs.length === 1 ? p.out : outFor(p.out, name);
      const result = await evaluate({
        sampler,
        renderer,
        env: makeEnv(name, values, sandbox, toolTimeoutMs),
        reward,
        examples,
        n: p.n,
        concurrency: p.concurrency,
        budgets: p.budgets,
        sampling: p.sampling,
        outPath,
        // A failed trajectory (the server unreachable, a sampler error) stops the evaluation with its cause (exit 1)
        // instead of counting as a wrong answer: a table of infrastructure failures would read as a bad model.
        failure: { kind: 'fail_fast' },
        ...(p.templateKwargs ? { templateKwargs: p.templateKwargs } : {}),
      });
      rows.push(table.row(name === 'retool' ? 'tool mode' : 'text-only mode', result));
      outs.push(outPath);
    }
    io.stdout(`${table.header(p.n)}\n${rows.join('\n')}\n`);
    io.stderr(`agentrl eval: per-problem results in ${outs.join(', ')}\n`);
    return 0;
  } catch (e) {
    const usage = AgentRLError.isInstance(e) && e.code === 'CONFIG_INVALID';
    io.stderr(`agentrl eval: ${e instanceof Error ? e.message : String(e)}\n`);
    return usage ? 2 : 1;
  } finally {
    await sandbox?.close();
    await reward.close();
  }
}

/** `agentrl eval`: evaluates a model served by vLLM, SGLang or `agentrl serve` on the ReTool environment. */
export const evalCommand: CliCommand = {
  name: 'eval',
  summary: 'evaluate a served model (vLLM, SGLang, agentrl serve) on an environment: Average@N, Pass@N, tool use',
  usage: USAGE,
  run,
};
