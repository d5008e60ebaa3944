/**
 * A custom environment in a few lines: reverse the order of some words. Single turn, no tools; the reply is
 * the answer, scored by normalised exact match. Shows the whole public surface a new task needs.
 *
 *   node --import tsx examples/custom-env/reverse-words.ts [--steps 10]
 */
import { parseArgs } from 'node:util';
import { Trainer, exactMatch, localBackend, type Environment, type Example } from 'agentrl';
import { mulberry32 } from 'agentrl/internal';

const reverseWords: Environment = {
  name: 'reverse-words',
  tools: [],
  initialMessages: (ex) => [{ role: 'user', content: `Reverse the word order: ${ex.question}` }],
  step: async (action) => ({ done: true, reason: action.kind === 'answer' ? 'answer' : 'invalid' }), // the reply is final
};

const WORDS = ['red', 'blue', 'cat', 'dog', 'sun', 'moon', 'tree', 'fish'];
const rand = mulberry32(1);
const dataset: Example[] = Array.from({ length: 200 }, (_, i) => {
  const words = Array.from({ length: 2 + Math.floor(rand() * 2) }, () => WORDS[Math.floor(rand() * WORDS.length)]!);
  return { id: `rw-${i}`, question: words.join(' '), answer: [...words].reverse().join(' ') };
});

const { values } = parseArgs({ options: { steps: { type: 'string', default: '10' } } });
const backend = localBackend({ seed: 1 });
const trainer = new Trainer({
  backend, env: reverseWords, reward: exactMatch(), dataset,
  loss: { kind: 'ppo', clipLow: 0.8, clipHigh: 1.28 },
  groupSize: 8, questionsPerBatch: 4, maxSteps: Number(values.steps),
  budgets: { maxTurns: 1, maxTurnTokens: 32, maxTrajectoryTokens: 256 },
  optimizer: { learningRate: 1e-4 },
});
trainer.on('step', (e) => console.log(e.step, e.metrics['reward/mean']));
await trainer.train();
await backend.close();
