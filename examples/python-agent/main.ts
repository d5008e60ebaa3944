/**
 * python-agent: an agent program in Python (standard library only, `agent.py`) trained as it is, on the embedded CPU
 * backend. The task is mcp-agent's (depot records, random two-digit numbers only a tool knows, held-out (depot, field)
 * pairs never asked in training); the tool runs inside the Python program, on a records folder it is given.
 * 1. held-out eval of fresh weights, through the Python agent;
 * 2. the cold start: by default the shipped checkpoint (`checkpoints/cold-start`, written by `--cold-start --save`);
 *    with `--cold-start`, `coldStart` in two stages on demonstrations rendered exactly as the agent's requests render
 *    (same system prompt, same tool definition), half of which answer without reading (always wrong); held-out eval;
 * 3. RL through `agentEnvironment({ command: ['python3', 'agent.py'] })` (PPO 0.8 / 1.28), then held-out eval.
 *
 *   node --import tsx examples/python-agent/main.ts [--steps 20] [--lr 1e-3] [--group 8] [--questions 8] [--n 4] [--checkpoint DIR]
 *   node --import tsx examples/python-agent/main.ts --cold-start [--sft-steps 1000] [--guess-share 0.5] [--save DIR] …
 * (`PYTHON=/path/to/python3` picks the interpreter.)
 */
import { rmSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { Trainer, agentEnvironment, coldStart, evalTable, evaluate, exactMatch, localBackend, type EvalResult, type TrainingBackend } from 'agentrl';
import { BUDGETS, MODEL, questions, recordsServer } from '../mcp-agent/task.js';
import { AGENT, COLD_START_CHECKPOINT, PYTHON, coldStartDemonstrations as demonstrations, demonstrationEnv } from './task.js';

const { values } = parseArgs({
  options: {
    'cold-start': { type: 'boolean', default: false },
    'sft-steps': { type: 'string', default: '1000' },
    'guess-share': { type: 'string', default: '0.5' },
    checkpoint: { type: 'string', default: COLD_START_CHECKPOINT },
    save: { type: 'string' },
    steps: { type: 'string', default: '20' },
    group: { type: 'string', default: '8' },
    questions: { type: 'string', default: '8' },
    lr: { type: 'string', default: '1e-3' },
    n: { type: 'string', default: '4' },
    seed: { type: 'string', default: '7' },
  },
});
const seed = Number(values.seed);
const n = Number(values.n);
const guessShare = Number(values['guess-share']);
const budgets = BUDGETS;
const t0 = performance.now();
const log = (s: string) => console.log(`[${((performance.now() - t0) / 1000).toFixed(0)}s] ${s}`);

const { dir } = recordsServer(); // the records folder (the MCP server command is not used here)
/** The agent program, per rollout: the records folder and the turn budget are its only settings. */
const agent = agentEnvironment({ command: [PYTHON, AGENT], env: { RECORDS_DIR: dir, MAX_TURN_TOKENS: String(budgets.maxTurnTokens) }, timeoutMs: 120_000 });
/** The same prompt and tool as an environment, only to render the cold-start demonstrations. */
const demoEnv = demonstrationEnv(dir);

const fresh = localBackend({ ...MODEL, seed });
const backend: TrainingBackend = values['cold-start'] ? fresh : localBackend({ checkpoint: values.checkpoint });
const reward = exactMatch();
const train = questions('train');
const test = questions('test');
const heldOut = async (b: TrainingBackend): Promise<EvalResult> =>
  evaluate({
    sampler: await b.saveWeightsForSampler(),
    renderer: await b.renderer(),
    env: agent,
    reward,
    examples: test,
    n,
    budgets,
    sampling: { temperature: 1, topP: 1 },
  });
const rows: [string, EvalResult][] = [];
try {
  log(`${train.length} training questions, ${test.length} held-out (depot, field) pairs; agent: ${PYTHON} ${AGENT}`);
  rows.push(['fresh weights', await heldOut(fresh)]);
  if (values['cold-start']) {
    const sftSteps = Number(values['sft-steps']);
    // mcp-agent's two stages: the server's records first (the path copy forms), then records showing other numbers
    // (copying the tool's number is the only rule that fits; remembering a training answer does not).
    const stages = [
      { steps: Math.round(sftSteps / 2), demos: demonstrations(train, { passes: 4, guessShare, seed, otherRecords: false }) },
      { steps: sftSteps - Math.round(sftSteps / 2), demos: demonstrations(train, { passes: 8, guessShare, seed, otherRecords: true }) },
    ];
    const heldOutDemos = demonstrations(test, { passes: 1, guessShare: 0, seed, otherRecords: false });
    for (const [k, stage] of stages.entries()) {
      const last = k === stages.length - 1;
      log(`cold start ${k + 1}/${stages.length}: ${stage.steps} SFT steps, ${(guessShare * 100).toFixed(0)}% of demonstrations answer without reading`);
      const cs = await coldStart(backend, demoEnv, stage.demos, {
        steps: stage.steps,
        batchSize: 16,
        learningRate: 5e-3,
        seed: seed + k,
        maxToolResponseTokens: budgets.maxToolResponseTokens,
        maxTurnTokens: budgets.maxTurnTokens,
        heldOut: heldOutDemos,
        ...(last && values.save ? { savePath: values.save } : {}),
        onStep: (e) => {
          if (e.step % 100 === 0) log(`sft step ${e.step}/${stage.steps} loss ${e.loss.toFixed(4)}`);
        },
      });
      log(`held-out calls with the right arguments: ${((cs.heldOut?.argumentAccuracy ?? 0) * 100).toFixed(1)}%`);
    }
  } else {
    await fresh.close?.();
    log(`cold start: the checkpoint ${values.checkpoint}`);
  }
  rows.push(['cold start', await heldOut(backend)]);
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
  trainer.on('step', (e) =>
    log(
      `rl step ${e.step}  reward/mean ${e.metrics['reward/mean']!.toFixed(3)}  tool use ${(e.metrics['rollout/tool_use_rate'] ?? 0).toFixed(2)}  errors ${(e.metrics['rollout/error_rate'] ?? 0).toFixed(2)}`,
    ),
  );
  await trainer.train();
  rows.push(['cold start + RL', await heldOut(backend)]);
  const table = evalTable();
  const pct = (x: number | undefined) => `${((x ?? 0) * 100).toFixed(1)}%`;
  console.log(`\nheld-out (${test.length} (depot, field) pairs never asked in training, ${n} samples each, temperature 1, through agent.py):`);
  console.log(`${table.header(n)}  tooluse  errors`);
  for (const [name, r] of rows)
    console.log(`${table.row(name, r)}  ${pct(r.metrics['eval/tool_use_rate']).padStart(7)}  ${pct(r.metrics['eval/error_rate']).padStart(6)}`);
  log('done');
} finally {
  await agent.close();
  await backend.close?.();
  rmSync(dir, { recursive: true, force: true });
}
