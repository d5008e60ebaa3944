/**
 * mcp-agent: cold start + RL on a real MCP server's tools, on the embedded CPU backend.
 * The official filesystem server is started once on a temp folder of depot records (`connection: 'shared'`: the
 * policy only reads); the policy is offered the server's `read_text_file` tool alone. Reward = exact match of
 * `<answer>…</answer>`.
 * 1. held-out eval of fresh weights;
 * 2. cold start (`coldStart`): demonstrations rendered through the real server's `read_text_file` results, deliberately
 *    imperfect (a share answer without looking up, i.e. guess), then held-out eval;
 * 3. RL (PPO 0.8 / 1.28, group-centred advantages, tool output masked), then held-out eval; prints the table.
 *
 *   node --import tsx examples/mcp-agent/main.ts [--sft-steps 500] [--steps 12] [--group 8] [--questions 8] [--checkpoint DIR] [--save DIR]
 * `--checkpoint DIR` starts from a saved state and skips the cold start; `--save DIR` writes the cold-start state.
 */
import { rmSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { Trainer, coldStart, evaluate, exactMatch, localBackend, mcpEnvironment, type TrainingBackend } from 'agentrl';
import { BUDGETS, MODEL, SYSTEM_PROMPT, TOOL, demonstrations, questions, recordsServer } from './task.js';

const { values } = parseArgs({
  options: {
    'sft-steps': { type: 'string', default: '1000' },
    steps: { type: 'string', default: '30' },
    group: { type: 'string', default: '8' },
    questions: { type: 'string', default: '8' },
    lr: { type: 'string', default: '2e-4' },
    n: { type: 'string', default: '4' },
    seed: { type: 'string', default: '7' },
    checkpoint: { type: 'string' },
    save: { type: 'string' },
  },
});
const seed = Number(values.seed);
const n = Number(values.n);
const budgets = BUDGETS;
const t0 = performance.now();
const log = (s: string) => console.log(`[${((performance.now() - t0) / 1000).toFixed(0)}s] ${s}`);

const { dir, ...server } = recordsServer();
const env = await mcpEnvironment({
  server,
  connection: 'shared',
  tools: [TOOL],
  initialMessages: (ex) => [
    { role: 'system', content: SYSTEM_PROMPT },
    { role: 'user', content: ex.question },
  ],
});
const backend: TrainingBackend = values.checkpoint ? localBackend({ checkpoint: values.checkpoint }) : localBackend({ ...MODEL, seed });
const reward = exactMatch();
const train = questions('train');
const test = questions('test');
type Row = { average: number; pass: number; toolUse: number; validCalls: number };
const heldOut = async (): Promise<Row> => {
  const r = await evaluate({
    sampler: await backend.saveWeightsForSampler(),
    renderer: await backend.renderer(),
    env,
    reward,
    examples: test,
    n,
    budgets,
    sampling: { temperature: 1, topP: 1 },
  });
  const m = r.metrics;
  return { average: m['eval/average_at_n']!, pass: m['eval/pass_at_n']!, toolUse: m['eval/tool_use_rate']!, validCalls: m['eval/valid_tool_call_rate']! };
};
const rows: [string, Row][] = [];
try {
  log(`${train.length} training questions, ${test.length} held-out (depot, field) pairs never asked in training`);
  if (!values.checkpoint) {
    rows.push(['fresh weights', await heldOut()]);
    const sftSteps = Number(values['sft-steps']);
    // Two stages (measured: one alone does not get both copies): on the server's own records the path copy forms
    // (100% of held-out calls right after 500 steps in the 2026-12-02 run, 31.3% in the 2026-12-04 one and 100% after
    // the second stage) but the training answers are simply remembered; with other
    // numbers in the records from the start the path copy had not formed after 1500 steps (0%).
    const stages = [
      {
        steps: Math.round(sftSteps / 2),
        demos: demonstrations(train, { passes: 4, guessShare: 0.25, seed, otherRecords: false }),
        what: "the server's records",
      },
      {
        steps: sftSteps - Math.round(sftSteps / 2),
        demos: demonstrations(train, { passes: 8, guessShare: 0.25, seed, otherRecords: true }),
        what: 'records showing other numbers',
      },
    ];
    const heldOutDemos = demonstrations(test, { passes: 1, guessShare: 0, seed, otherRecords: false });
    let cs: Awaited<ReturnType<typeof coldStart>> | undefined;
    for (const [k, stage] of stages.entries()) {
      const last = k === stages.length - 1;
      log(`cold start ${k + 1}/${stages.length}: ${stage.steps} SFT steps on demonstrations through the filesystem server's read_text_file, ${stage.what}`);
      cs = await coldStart(backend, env, stage.demos, {
        steps: stage.steps,
        batchSize: 16,
        learningRate: 5e-3,
        seed: seed + k,
        maxToolResponseTokens: budgets.maxToolResponseTokens,
        maxTurnTokens: budgets.maxTurnTokens,
        heldOut: heldOutDemos,
        ...(last && values.save ? { savePath: values.save } : {}),
        onWarning: (m) => (last ? console.warn(m) : undefined),
        onStep: (e) => {
          if (e.step % 100 === 0) log(`sft step ${e.step}/${stage.steps} loss ${e.loss.toFixed(4)}`);
        },
      });
      log(`held-out calls with the right arguments: ${((cs.heldOut?.argumentAccuracy ?? 0) * 100).toFixed(1)}%`);
    }
    log(`cold start: ${cs!.datums} demonstrations in the last stage (longest ${cs!.longestTokens} tokens)`);
  }
  rows.push(['cold start', await heldOut()]);
  const trainer = new Trainer({
    backend,
    env,
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
  trainer.on('step', (e) =>
    log(
      `rl step ${e.step}  reward/mean ${e.metrics['reward/mean']!.toFixed(3)}  tool use ${e.metrics['rollout/tool_use_rate']!.toFixed(2)}  valid calls ${e.metrics['rollout/valid_tool_call_rate']!.toFixed(2)}`,
    ),
  );
  await trainer.train();
  rows.push(['cold start + RL', await heldOut()]);
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
  console.log(`\nheld-out (${test.length} (depot, field) pairs never asked in training, ${n} samples each):`);
  console.log(`| | Average@${n} | Pass@${n} | tool-call rate | valid-call rate |\n| --- | --- | --- | --- | --- |`);
  for (const [name, m] of rows) console.log(`| ${name} | ${pct(m.average)} | ${pct(m.pass)} | ${pct(m.toolUse)} | ${pct(m.validCalls)} |`);
  log('done');
} finally {
  await env.close();
  await backend.close?.();
  rmSync(dir, { recursive: true, force: true });
}
