import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TrajectoryRecord } from 'agentrl';
import { scriptedRun } from '../helpers/scripted-run.js';

/** Hazard: a run a person cannot read back — no trajectories, or a token view whose trained/masked split is wrong. */
describe('Trainer run log (trajectories.jsonl, config.json)', () => {
  it('records the best and worst trajectory of each group with messages, mask segments and advantage', async () => {
    const dir = await scriptedRun({ steps: 2 });
    const records = (await readFile(join(dir, 'trajectories.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as TrajectoryRecord);
    // perStep 4 by default: 2 groups × (best, worst) per step.
    expect(records).toHaveLength(4 * 2);
    expect(records.map((r) => r.step)).toEqual([1, 1, 1, 1, 2, 2, 2, 2]);
    const best = records.find((r) => r.correct)!;
    expect(best.reward).toBe(1);
    expect(best.toolCalls).toBe(1);
    expect(best.stopReason).toBe('answer');
    // Group rewards [1, -1, -1]: mean -1/3, so the best has advantage 4/3, the worst -2/3.
    expect(best.advantage).toBeCloseTo(4 / 3, 6);
    const worst = records.find((r) => r.step === best.step && r.exampleId === best.exampleId && !r.correct)!;
    expect(worst.advantage).toBeCloseTo(-2 / 3, 6);
    // Segments: prompt (mask 0), completion with the tool call (1), interpreter output + scaffolding (0), answer (1).
    expect(best.segments.map((s) => [s.kind, s.mask])).toEqual([
      ['prompt', 0],
      ['completion', 1],
      ['observation', 0],
      ['completion', 1],
    ]);
    expect(best.segments[1]!.text).toContain('print(3 * 4)');
    expect(best.segments[2]!.text).toContain('12');
    expect(best.segments[3]!.text).toContain('\\boxed{12}');
    expect(best.messages.some((m) => m.role === 'tool' && m.content.includes('12'))).toBe(true);
    const config = JSON.parse(await readFile(join(dir, 'config.json'), 'utf8')) as Record<string, unknown>;
    expect(config['groupSize']).toBe(3);
    expect(config['dataset']).toEqual({ examples: 2 });
    expect(config['env']).toEqual({ name: 'code-interpreter' });
  });

  it('records nothing with perStep 0', async () => {
    const dir = await scriptedRun({ steps: 1, perStep: 0 });
    await expect(readFile(join(dir, 'trajectories.jsonl'), 'utf8')).rejects.toThrow(/ENOENT/);
  });
});
