/**
 * python-agent: an agent program in Python (standard library only, `agent.py`) trained as it is, on the embedded CPU
 * backend. The task is mcp-agent's (depot records, random two-digit numbers only a tool knows, held-out (depot, field)
 * pairs never asked in training); the tool runs inside the Python program, on a records folder it is given.
 * 1. held-out eval of fresh weights, through the Python agent;
 * 2. cold start (`coldStart`) on demonstrations rendered exactly as the agent's requests render (same system prompt,
 *    same tool definition), deliberately imperfect (a share answer without reading the record), then held-out eval;
 * 3. RL through `agentEnvironment({ command: ['python3', 'agent.py'] })` (PPO 0.8 / 1.28), then held-out eval.
 *
 *   node --import tsx examples/python-agent/main.ts [--sft-steps 1000] [--steps 20] [--group 8] [--questions 8] [--n 4]
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Trainer, agentEnvironment, coldStart, evaluate, exactMatch, localBackend, type Environment, type Example, type ToolDefinition } from 'agentrl';
import { BUDGETS, MODEL, demonstrations, questions, recordsServer } from '../mcp-agent/task.js';

const { values } = parseArgs({
  options: {
    'sft-steps': { type: 'string', default: '1000' },
    steps: { type: 'string', default: '20' },
    group: { type: 'string', default: '8' },
    questions: { type: 'string', default: '8' },
    lr: { type: 'string', default: '2e-4' },
    n: { type: 'string', default: '4' },
    seed: { type: 'string', default: '7' },
    python: { type: 'string', default: 'python3' },
  },
});
const seed = Number(values.seed);
const n = Number(values.n);
const budgets = BUDGETS;
const t0 = performance.now();
const log = (s: string) => console.log(`[${((performance.now() - t0) / 1000).toFixed(0)}s] ${s}`);

// The agent's system prompt and tool, read from agent.py itself so that the cold start renders what the agent sends.
const AGENT = fileURLToPath(new URL('./agent.py', import.meta.url));
const source = readFileSync(AGENT, 'utf8');
const SYSTEM_PROMPT = JSON.parse(/^SYSTEM_PROMPT = (".*")$/m.exec(source)![1]!) as string;
const TOOL: ToolDefinition = {
  type: 'function',
  function: { name: 'read_text_file', description: 'Read a record.', parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } },
};

const { dir } = recordsServer(); // the records folder (the MCP server command is not used here)
/** The agent program, per rollout: the records folder and the turn budget are its only settings. */
const agent = agentEnvironment({ command: [values.python!, AGENT], env: { RECORDS_DIR: dir, MAX_TURN_TOKENS: String(budgets.maxTurnTokens) }, timeoutMs: 120_000 });
/** The same prompt and tool as an environment, only to render the cold-start demonstrations (the tool reads the same folder). */
const demoEnv: Environment = {
  name: 'records',
  tools: [TOOL],
  initialMessages: (ex: Example) => [{ role: 'system', content: SYSTEM_PROMPT }, { role: 'user', content: ex.question }],
  step: async (action) => {
    if (action.kind !== 'tool') return { done: true, reason: action.kind };
    const path = String(action.call.function.arguments['path'] ?? '');
    let content: string;
    try {
      content = readFileSync(join(dir, path), 'utf8');
    } catch {
      content = `Error: no such record: ${path}`;
    }
    return { done: false, observation: [{ role: 'tool', name: 'read_text_file', content }] };
  },
};

const backend = localBackend({ ...MODEL, seed });
const reward = exactMatch();
const train = questions('train');
const test = questions('test');
type Row = { average: number; pass: number; toolUse: number; errors: number };
const heldOut = async (): Promise<Row> => {
  const r = await evaluate({ sampler: await backend.saveWeightsForSampler(), renderer: await backend.renderer(), env: agent, reward, examples: test, n, budgets, sampling: { temperature: 1, topP: 1 } });
  const m = r.metrics;
  return { average: m['eval/average_at_n']!, pass: m['eval/pass_at_n']!, toolUse: m['eval/tool_use_rate'] ?? 0, errors: m['eval/error_rate'] ?? 0 };
};
const rows: [string, Row][] = [];
try {
  log(`${train.length} training questions, ${test.length} held-out (depot, field) pairs; agent: ${values.python} ${AGENT}`);
  rows.push(['fresh weights', await heldOut()]);
  const sftSteps = Number(values['sft-steps']);
  // mcp-agent's two stages: the server's records first (the path copy forms), then records showing other numbers
  // (copying the tool's number is the only rule that fits; remembering a training answer does not).
  const stages = [
    { steps: Math.round(sftSteps / 2), demos: demonstrations(train, { passes: 4, guessShare: 0.25, seed, otherRecords: false }) },
    { steps: sftSteps - Math.round(sftSteps / 2), demos: demonstrations(train, { passes: 8, guessShare: 0.25, seed, otherRecords: true }) },
  ];
  for (const [k, stage] of stages.entries()) {
    log(`cold start ${k + 1}/${stages.length}: ${stage.steps} SFT steps`);
    await coldStart(backend, demoEnv, stage.demos, {
      steps: stage.steps,
      batchSize: 16,
      learningRate: 5e-3,
      seed: seed + k,
      maxToolResponseTokens: budgets.maxToolResponseTokens,
      maxTurnTokens: budgets.maxTurnTokens,
      onStep: (e) => {
        if (e.step % 100 === 0) log(`sft step ${e.step}/${stage.steps} loss ${e.loss.toFixed(4)}`);
      },
    });
  }
  rows.push(['cold start', await heldOut()]);
  const trainer = new Trainer({
    backend,
    env: agent,
    reward,
    loss: { kind: 'ppo', clipLow: 0.8, clipHigh: 1.28 },
    optimizer: { learningRate: Number(values.lr) },
    sampling: { temperature: 1, topP: 1 },
    dataset: train,
    groupSize: Number(values.group),
    questionsPerBatch: Number(values.questions),
    maxSteps: Number(values.steps),
    budgets,
    seed,
    progress: false,
  });
  trainer.on('warning', (w) => console.warn(`warning ${w.code}: ${w.message}`));
  trainer.on('step', (e) => log(`rl step ${e.step}  reward/mean ${e.metrics['reward/mean']!.toFixed(3)}  turns ${e.metrics['rollout/turns']!.toFixed(2)}  errors ${(e.metrics['rollout/error_rate'] ?? 0).toFixed(2)}`));
  await trainer.train();
  rows.push(['cold start + RL', await heldOut()]);
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
  console.log(`\nheld-out (${test.length} (depot, field) pairs never asked in training, ${n} samples each, through agent.py):`);
  console.log(`| | Average@${n} | Pass@${n} | tool-call rate | agent errors |\n| --- | --- | --- | --- | --- |`);
  for (const [name, m] of rows) console.log(`| ${name} | ${pct(m.average)} | ${pct(m.pass)} | ${pct(m.toolUse)} | ${pct(m.errors)} |`);
  log('done');
} finally {
  await agent.close();
  await backend.close?.();
  rmSync(dir, { recursive: true, force: true });
}
