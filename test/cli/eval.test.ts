import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localSandbox } from 'agentrl/adapters/local';
import { localBackend } from '../../src/backend/local/local-backend.js';
import type { TrainingBackend } from '../../src/backend/types.js';
import { codeInterpreter } from '../../src/env/code-interpreter.js';
import type { Environment } from '../../src/env/types.js';
import { loadMathDataset } from '../../src/data/loaders.js';
import { evaluate, type EvalRecord } from '../../src/eval/evaluate.js';
import { evalTable } from '../../src/eval/eval-table.js';
import { mathReward } from '../../src/reward/math-reward.js';
import { evalCommand } from '../../apps/cli/eval.js';
import { runCli } from '../../apps/cli/run-cli.js';
import { registerBuiltinCommands } from '../../apps/cli/commands.js';
import type { HttpServer } from '../../src/http/http-server.js';
import { LOCAL_MODEL_DIR, localRenderer } from '../helpers/local-renderer.js';
import { serveV1 } from '../serve/openai/helpers.js';

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));
const CHECKPOINT = here('../../examples/retool/checkpoints/sft');
const DEV = here('../../examples/retool/data/dev.jsonl');
// the ReTool example's budgets (examples/retool/config.ts), sized for the shipped model's 192-token context
const BUDGETS = { maxToolCalls: 3, maxTurns: 4, maxTrajectoryTokens: 192, maxTurnTokens: 64, maxToolResponseTokens: 16 };

let backend: TrainingBackend;
let served: { server: HttpServer; baseUrl: string };
let dir: string;

beforeAll(async () => {
  backend = localBackend({ checkpoint: CHECKPOINT });
  const [sampler, renderer] = await Promise.all([backend.saveWeightsForSampler(), localRenderer()]);
  served = await serveV1({ sampler, renderer, modelName: 'retool-sft' });
  dir = mkdtempSync(join(tmpdir(), 'agentrl-eval-'));
});
afterAll(async () => {
  await served?.server.close();
  await backend?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function capture() {
  const out = { stdout: '', stderr: '' };
  return { out, io: { stdout: (t: string) => void (out.stdout += t), stderr: (t: string) => void (out.stderr += t), signal: new AbortController().signal } };
}

describe('agentrl eval', () => {
  it('is registered, and prints the eval table (tool and text-only rows) and the same per-problem results as in-process evaluate()', async () => {
    // Hazard: the CLI's sampler, env or settings drifting from what evaluate() does with the same model and seed.
    registerBuiltinCommands();
    const outPath = join(dir, 'results.jsonl');
    const { out, io } = capture();
    const args = [
      'eval',
      '--sampler',
      served.baseUrl,
      '--model',
      'retool-sft',
      '--tokenizer',
      LOCAL_MODEL_DIR,
      '--env',
      'retool,retool-text',
      '--data',
      DEV,
      '--limit',
      '3',
      '--n',
      '2',
      '--concurrency',
      '4',
      '--seed',
      '1234',
      '--system-prompt',
      'none',
      '--tool-timeout-ms',
      '5000',
      '--max-tool-calls',
      '3',
      '--max-turns',
      '4',
      '--max-trajectory-tokens',
      '192',
      '--max-turn-tokens',
      '64',
      '--max-tool-response-tokens',
      '16',
      '--out',
      outPath,
    ];
    const code = await runCli(args, io);
    expect(out.stderr).not.toContain('Error');
    expect(code).toBe(0);
    const read = (f: string) =>
      readFileSync(join(dir, f), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as EvalRecord);
    const got = read('results.retool.jsonl');
    const gotText = read('results.retool-text.jsonl');

    const env = codeInterpreter({ sandbox: localSandbox({ workers: 2, timeoutMs: 5000 }), systemPrompt: null, timeoutMs: 5000 });
    const reward = mathReward();
    try {
      const common = {
        sampler: await backend.saveWeightsForSampler(),
        renderer: await localRenderer(),
        reward,
        examples: await loadMathDataset(DEV, { limit: 3 }),
        n: 2,
        budgets: BUDGETS,
        sampling: { temperature: 1, topP: 1, seed: 1234 },
      };
      const want = await evaluate({ ...common, env });
      const textEnv: Environment = {
        name: 'text-only',
        tools: [],
        initialMessages: (ex) => [{ role: 'user', content: ex.question }],
        step: async () => ({ done: true }),
      };
      const wantText = await evaluate({ ...common, env: textEnv });
      expect(got).toEqual(want.records);
      expect(gotText).toEqual(wantText.records);
      expect(got.some((r) => r.toolCalls.some((k) => k > 0))).toBe(true); // the tool path (multi-turn prompts over HTTP) ran
      const table = evalTable({ labelWidth: 22, toolColumn: 'tools' });
      expect(out.stdout).toBe(`${table.header(2)}\n${table.row('tool mode', want)}\n${table.row('text-only mode', wantText)}\n`);
    } finally {
      await env.close?.();
      await reward.close();
    }
  });

  it('bad usage exits 2 with the usage text; an unreachable server exits 1 with the reason', async () => {
    const a = capture();
    expect(await evalCommand.run(['--model', 'm'], a.io)).toBe(2);
    expect(a.out.stderr).toContain('--sampler is required');
    const f = capture();
    expect(
      await evalCommand.run(['--sampler', 'http://127.0.0.1:9/v1', '--model', 'm', '--tokenizer', LOCAL_MODEL_DIR, '--data', DEV, '--family', 'gpt5'], f.io),
    ).toBe(2);
    expect(f.out.stderr).toContain("--family must be one of gpt_oss, kimi_k2, deepseek_v3, mistral, llama3, qwen3_coder, qwen3, got 'gpt5'");
    // A bad number flag read after the plan (--tool-timeout-ms, --timeout-ms, --limit, --sandbox-workers) used to escape
    // run() as an exception or exit 1; it is bad usage like every other flag.
    for (const flag of ['--tool-timeout-ms', '--timeout-ms', '--limit', '--sandbox-workers']) {
      const t = capture();
      expect(
        await evalCommand.run(['--sampler', 'http://127.0.0.1:9/v1', '--model', 'm', '--tokenizer', LOCAL_MODEL_DIR, '--data', DEV, flag, '0'], t.io),
        flag,
      ).toBe(2);
      expect(t.out.stderr).toContain(`${flag} expects an integer ≥ 1, got '0'`);
    }
    const b = capture();
    expect(
      await evalCommand.run(
        [
          '--sampler',
          'http://127.0.0.1:9/v1',
          '--model',
          'm',
          '--tokenizer',
          LOCAL_MODEL_DIR,
          '--data',
          DEV,
          '--limit',
          '1',
          '--env',
          'retool-text',
          '--out',
          join(dir, 'x.jsonl'),
        ],
        b.io,
      ),
    ).toBe(1);
    expect(b.out.stderr).toMatch(/SAMPLER_UNAVAILABLE|request failed|127\.0\.0\.1:9/);
  });
});
