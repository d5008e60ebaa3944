import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors/index.js';
import { lossConfigSchema, lossDefinition, parseLossConfig } from '../../src/loss/index.js';
import type { LossConfig } from '../../src/types/index.js';

const describeLoss = (c: LossConfig): string => lossDefinition(c).describe(c as never);

function issues(input: unknown): string[] {
  try {
    parseLossConfig(input);
  } catch (e) {
    if (e instanceof ConfigError) return e.issues.map((i) => `${i.path}: ${i.message}`);
    throw e;
  }
  return [];
}

describe('lossConfigSchema / parseLossConfig', () => {
  it('accepts each kind with valid parameters', () => {
    for (const c of [
      { kind: 'ppo', clipLow: 0.8, clipHigh: 1.28 },
      { kind: 'ppo', clipLow: 0.8, clipHigh: 1.2, aggregation: 'sequence-mean' },
      { kind: 'importance_sampling' },
      { kind: 'cispo', clipHigh: 4 },
      { kind: 'cispo', clipLow: 0.5, clipHigh: 4, aggregation: 'token-sum' },
      { kind: 'cross_entropy' },
    ]) {
      expect(parseLossConfig(c)).toEqual(c);
      expect(lossConfigSchema.safeParse(c).success).toBe(true);
    }
  });

  it('reports ppo bounds with dotted paths and the received value', () => {
    // Hazard: ε-style bounds (0.2 / 0.28) passed where absolute ratios are expected.
    expect(issues({ kind: 'ppo', clipLow: 0.2, clipHigh: 0.28 })).toEqual(['loss.clipHigh: expected a number > 1, got 0.28']);
    expect(issues({ kind: 'ppo', clipLow: 0, clipHigh: 1.28 })).toEqual(['loss.clipLow: expected a number in (0, 1), got 0']);
    expect(issues({ kind: 'ppo', clipHigh: 1.28 })).toEqual(['loss.clipLow: expected a number in (0, 1), got nothing (required)']);
  });

  it('rejects unknown keys, unknown kinds and bad aggregations', () => {
    // Hazard: a misspelt option silently ignored (every config key takes effect or is rejected).
    expect(issues({ kind: 'ppo', clipLow: 0.8, clipHigh: 1.28, clip_high: 1.3 })).toEqual(['loss.clip_high: unknown key']);
    expect(issues({ kind: 'grpo' })).toEqual([
      "loss.kind: expected kind 'ppo' | 'importance_sampling' | 'cispo' | 'cross_entropy' | 'gspo' | 'custom', got \"grpo\"",
    ]);
    expect(issues({ kind: 'cross_entropy', aggregation: 'mean' })[0]).toMatch(/^loss\.aggregation: expected 'token-mean'/);
  });

  it('checks cispo bounds', () => {
    expect(issues({ kind: 'cispo', clipHigh: 0 })).toEqual(['loss.clipHigh: expected a number > 0, got 0']);
    expect(issues({ kind: 'cispo', clipLow: 5, clipHigh: 4 })).toEqual(['loss.clipLow: expected clipLow < clipHigh']);
  });

  it('uses the caller-supplied path prefix', () => {
    expect(() => parseLossConfig({ kind: 'ppo', clipLow: 0.8, clipHigh: 1 }, 'trainer.loss')).toThrow(/trainer\.loss\.clipHigh/);
  });
});

describe("each kind's describe (LossDefinition.describe)", () => {
  it('describes every kind with defaults filled in', () => {
    expect(describeLoss({ kind: 'ppo', clipLow: 0.8, clipHigh: 1.28 })).toBe('ppo clip [0.8, 1.28], token-mean');
    expect(describeLoss({ kind: 'importance_sampling', aggregation: 'token-sum' })).toBe('importance sampling, token-sum');
    expect(describeLoss({ kind: 'cispo', clipHigh: 4 })).toBe('cispo clip [0, 4], token-mean');
    expect(describeLoss({ kind: 'cross_entropy' })).toBe('cross entropy, token-mean');
  });
});
