/**
 * Search agent (Search-R1 recipe, scaled down): a model learns to call a `search` tool over an encyclopedia
 * and answer inside <answer>…</answer>; reward = normalised exact match (1 / 0), retrieved passages masked
 * out of the loss, GRPO group-centred advantages, PPO with asymmetric clipping.
 *
 *   node --import tsx examples/search-agent/train.ts [--steps 20] [--questions 4] [--group 8] [--lr 1e-4]
 *        [--checkpoint DIR] [--retriever http://127.0.0.1:8000]
 *
 * Retrieval is the embedded BM25 index over `data/corpus.jsonl`, or any Search-R1-compatible `/retrieve`
 * server given with --retriever (serve this corpus with `createRetrievalServer(bm25Retriever(corpus))`).
 * The embedded CPU model starts from scratch (or from --checkpoint), so expect rewards near 0 for a long
 * time; this script shows the wiring, the same code trains a real model on a capable backend.
 * Data: `node --import tsx examples/search-agent/data/build-data.ts` regenerates `data/`.
 */
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { Trainer, bm25Retriever, exactMatch, httpRetriever, loadCorpus, loadMathDataset, localBackend, search } from 'agentrl';

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));
const { values } = parseArgs({
  options: {
    steps: { type: 'string', default: '20' },
    questions: { type: 'string', default: '4' },
    group: { type: 'string', default: '8' },
    lr: { type: 'string', default: '1e-4' },
    checkpoint: { type: 'string' },
    retriever: { type: 'string' },
    'log-dir': { type: 'string', default: here('../../runs/search-agent') },
  },
});

const retriever = values.retriever ? httpRetriever({ url: values.retriever }) : bm25Retriever(await loadCorpus(here('./data/corpus.jsonl')));
// A 1024-token byte-level context: no system prompt (the tool list is rendered anyway), one passage per search.
const env = search({ retriever, topK: 1, maxCalls: 2, systemPrompt: null });
const backend = localBackend(values.checkpoint ? { checkpoint: values.checkpoint } : { layers: 2, dModel: 128, heads: 4, contextTokens: 1024, seed: 1 });
const trainer = new Trainer({
  backend,
  env,
  reward: exactMatch({ correct: 1, wrong: 0 }),
  loss: { kind: 'ppo', clipLow: 0.8, clipHigh: 1.28 },
  dataset: await loadMathDataset(here('./data/train.jsonl')),
  groupSize: Number(values.group),
  questionsPerBatch: Number(values.questions),
  maxSteps: Number(values.steps),
  budgets: { maxToolCalls: 2, maxTurns: 3, maxTrajectoryTokens: 1024, maxTurnTokens: 96, maxToolResponseTokens: 192 },
  optimizer: { learningRate: Number(values.lr), beta1: 0.9, beta2: 0.99 },
  logDir: values['log-dir'],
  progress: true,
});
trainer.on('warning', (w) => console.warn(`warning [${w.code}] ${w.message}`));
process.once('SIGINT', () => trainer.stop());
try {
  const summary = await trainer.train();
  console.log(`trained ${summary.steps} steps in ${summary.wallS.toFixed(0)}s; reward/mean: ${summary.rewardHistory.map((r) => r.toFixed(2)).join(' ')}`);
} finally {
  await env.close?.();
  await backend.close();
}
