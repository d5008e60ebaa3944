import { describe, expect, it } from 'vitest';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { codeInterpreter, evaluate, type Reward } from 'agentrl';
import { fakeSandbox, scriptedSampler } from 'agentrl/testing';
import { localRenderer, toolCall } from '../helpers/local-renderer.js';

const reward: Reward = (t, ex) => {
  const m = /\\boxed\{([^}]*)\}/.exec(t.finalText);
  const ok = m?.[1] === ex.answer;
  return { reward: ok ? 1 : -1, correct: ok, validFormat: m !== null, ...(m ? { answer: m[1]! } : {}) };
};

describe('evaluate', () => {
  it('computes Average@N, Pass@N, format rate, tool calls, turns and self-correction, and writes JSONL', async () => {
    const renderer = await localRenderer();
    // Problem a: sample 0 is right via the tool after a failed run, sample 1 wrong without the tool.
    // Problem b: both wrong, one without a box.
    const sampler = scriptedSampler({
      renderer,
      script: ({ prompt, sample }) => {
        const isA = prompt.includes('problem a');
        if (!prompt.includes('<tool_response>')) return isA ? [toolCall('1/0'), '\\boxed{5}'][sample]! : ['\\boxed{1}', 'no idea'][sample]!;
        if (!prompt.includes('print(7)')) return toolCall('print(7)');
        return '\\boxed{7}';
      },
    });
    const sandbox = fakeSandbox((req) => (req.code === '1/0' ? { status: 'error', exitCode: 1, stderr: 'ZeroDivisionError' } : { stdout: '7\n' }));
    const outPath = join(await mkdtemp(join(tmpdir(), 'agentrl-eval-')), 'tool.jsonl');
    const r = await evaluate({
      sampler,
      renderer,
      env: codeInterpreter({ sandbox, systemPrompt: null }),
      reward,
      examples: [
        { id: 'a', question: 'problem a', answer: '7' },
        { id: 'b', question: 'problem b', answer: '9' },
      ],
      n: 2,
      outPath,
      concurrency: 1,
    });
    expect(r.metrics['eval/average_at_n']).toBe(0.25);
    expect(r.metrics['eval/pass_at_n']).toBe(0.5);
    expect(r.metrics['eval/format_rate']).toBe(0.75);
    expect(r.metrics['eval/tool_calls']).toBe(0.5);
    expect(r.metrics['eval/self_correction_rate']).toBe(1);
    expect(r.metrics['eval/valid_tool_call_rate']).toBe(1);
    const lines = (await readFile(outPath, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.id)).toEqual(['a', 'b']);
    expect(lines[0].correct).toEqual([true, false]);
    expect(lines[0].toolCalls).toEqual([2, 0]);
  });
});
