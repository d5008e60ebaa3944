import { describe, expect, it } from 'vitest';
import { PromptPrefixError, TemplateRewriteError, assembleTrainingData, buildDatums } from 'agentrl';

// Hazard: one event under two error classes and two codes, so a handler written for one misses the other.
describe('one error for a prompt-prefix mismatch', () => {
  it('the deprecated TemplateRewriteError is the same class as PromptPrefixError', () => {
    expect(TemplateRewriteError).toBe(PromptPrefixError);
    const e = new TemplateRewriteError('history rewritten');
    expect(e).toBeInstanceOf(PromptPrefixError);
    expect(e.code).toBe('PROMPT_PREFIX_MISMATCH');
    expect(e.position).toBeUndefined();
    expect(new PromptPrefixError('x', { position: 3, cause: 'c' })).toMatchObject({ position: 3, cause: 'c' });
  });

  it('datum building throws that class under fail (the renderer does too: test/chat/next-prompt-qwen3.test.ts)', () => {
    const turns = [
      { promptTokens: [1, 2], completionTokens: [3], logprobs: [-1] },
      { promptTokens: [9, 9], completionTokens: [4], logprobs: [-1] },
    ];
    expect(() => buildDatums([{ turns }], [1], { onPrefixMismatch: 'fail' })).toThrow(expect.objectContaining({ code: 'PROMPT_PREFIX_MISMATCH', position: 0 }));
  });

  it('every place defaults to drop: assembleTrainingData and buildDatums leave the trajectory out and name it', () => {
    const bad = {
      turns: [
        { promptTokens: [1, 2], completionTokens: [3], logprobs: [-1] },
        { promptTokens: [9, 9], completionTokens: [4], logprobs: [-1] },
      ],
    };
    const good = { turns: [{ promptTokens: [1], completionTokens: [2], logprobs: [-1] }] };
    const group = { trajectories_G: [bad, good], outcome: { advantages_G: [1, -1], kept_G: [true, true], degenerate: false, droppedGroup: false } } as never;
    const assembled = assembleTrainingData([group]);
    expect(assembled.datums_D).toHaveLength(1);
    expect(assembled.dropped.map((d) => d.source)).toEqual([bad]);
    expect(buildDatums([bad, good], [1, -1]).dropped.map((d) => d.trajectoryIndex)).toEqual([0]);
  });
});
