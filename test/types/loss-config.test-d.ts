import { describe, expectTypeOf, it } from 'vitest';
import type { z } from 'zod';
import { type lossConfigSchema, parseLossConfig } from '../../src/loss/index.js';
import type { Aggregation, LossConfig } from '../../src/types/index.js';

describe('LossConfig and lossConfigSchema stay in step', () => {
  it('the schema output is exactly LossConfig', () => {
    expectTypeOf<z.output<typeof lossConfigSchema>>().toEqualTypeOf<LossConfig>();
  });

  it('the schema input accepts exactly the LossConfig shapes (no defaults hidden in the schema)', () => {
    expectTypeOf<z.input<typeof lossConfigSchema>>().toEqualTypeOf<LossConfig>();
  });

  it('parseLossConfig returns LossConfig', () => {
    expectTypeOf(parseLossConfig).returns.toEqualTypeOf<LossConfig>();
  });

  it('narrows on kind', () => {
    const c = parseLossConfig({ kind: 'ppo', clipLow: 0.8, clipHigh: 1.28 });
    if (c.kind === 'ppo') expectTypeOf(c.clipHigh).toBeNumber();
    if (c.kind === 'cispo') expectTypeOf(c.clipLow).toEqualTypeOf<number | undefined>();
    expectTypeOf(c.aggregation).toEqualTypeOf<Aggregation | undefined>();
    // @ts-expect-error clipHigh is required for ppo
    const bad: LossConfig = { kind: 'ppo', clipLow: 0.8 };
    void bad;
  });
});
