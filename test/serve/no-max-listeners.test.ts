import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Trainer, defineTool, exactMatch, tinkerBackend, toolEnvironment } from 'agentrl';
import { registerBuiltinCommands, runCli } from '../../apps/cli/index.js';
import { LOCAL_MODEL_DIR } from '../helpers/local-renderer.js';

// Hazard: training over `agentrl serve` printed `MaxListenersExceededWarning: Possible EventTarget memory leak
// detected. 11 abort listeners` — every request and every retry/poll wait in flight added its own listener to the
// client's one long-lived close signal. The documented serve path runs here with process warnings as errors.
const warnings: Error[] = [];
const onWarning = (w: Error) => warnings.push(w);
afterEach(() => {
  process.off('warning', onWarning);
});

describe('training over agentrl serve', () => {
  it('prints no process warning: 32 concurrent sampling futures, eval and training over HTTP', async () => {
    process.on('warning', onWarning);
    registerBuiltinCommands();
    const ac = new AbortController();
    let out = '';
    const served = runCli(['serve', '--port', '0', '--api-key', 'tml-k'], { stdout: (t) => (out += t), stderr: (t) => (out += t), signal: ac.signal });
    try {
      const deadline = Date.now() + 20_000;
      while (!/listening on/.test(out) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      const url = /listening on (http:\/\/\S+)/.exec(out)?.[1];
      expect(url, out).toBeDefined();
      const backend = tinkerBackend({ baseUrl: url!, apiKey: 'tml-k', baseModel: 'agentrl/local', renderer: LOCAL_MODEL_DIR });
      const add = defineTool({
        name: 'add',
        description: 'Add two numbers.',
        inputSchema: z.object({ a: z.number(), b: z.number() }),
        execute: ({ a, b }) => String(a + b),
      });
      const env = toolEnvironment({ name: 'calc', tools: [add], initialMessages: (ex) => [{ role: 'user', content: ex.question }] });
      const dataset = Array.from({ length: 16 }, (_, i) => ({ id: `q${i}`, question: `What is ${i} + 1?`, answer: String(i + 1) }));
      const trainer = new Trainer({
        backend,
        env,
        reward: exactMatch(),
        dataset,
        loss: { kind: 'ppo', clipLow: 0.8, clipHigh: 1.28 },
        groupSize: 8,
        questionsPerBatch: 4,
        maxSteps: 1,
        progress: false,
        budgets: { maxToolCalls: 1, maxTurns: 2, maxTurnTokens: 16, maxTrajectoryTokens: 256, maxToolResponseTokens: 8 },
        optimizer: { learningRate: 1e-3 },
        eval: { dataset: dataset.slice(0, 8), every: 1, samples: 2 },
      });
      const summary = await trainer.train();
      expect(summary.steps).toBe(1);
      await backend.close();
    } finally {
      ac.abort();
      await served;
    }
    await new Promise((r) => setImmediate(r)); // process warnings are emitted on the next tick
    expect(warnings.map((w) => `${w.name}: ${w.message}`)).toEqual([]);
  }, 120_000);
});
