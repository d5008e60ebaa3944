// optionKeys builds the strict run-time schema checkOptions validates an options object with: exactly the declared
// keys, `true` ones with any value or absent, typed ones by their own schema.
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors/config-error.js';
import { checkOptions, objectValue, optionKeys, positiveInt } from '../../src/util/check-options.js';

interface Opts {
  readonly retriever: object;
  readonly topK?: number;
  readonly maxCalls?: number;
  readonly formatQuestion?: (q: string) => string;
}

const SCHEMA = optionKeys<Opts>({ topK: true, maxCalls: positiveInt.optional(), formatQuestion: true, retriever: objectValue });

function refusal(input: unknown): string {
  try {
    checkOptions('search options', SCHEMA, input);
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return (e as Error).message;
  }
  throw new Error(`accepted ${JSON.stringify(input)}`);
}

describe('optionKeys', () => {
  it('accepts the declared keys: `true` ones with any value or absent, typed ones by their schema', () => {
    for (const ok of [{ retriever: {} }, { retriever: [], topK: 'anything', formatQuestion: null }, { retriever: {}, topK: undefined, maxCalls: 3 }]) {
      expect(() => checkOptions('search options', SCHEMA, ok)).not.toThrow();
    }
  });

  it('refuses an unknown key, naming the declared key it most likely meant', () => {
    expect(refusal({ retriever: {}, topk: 3 })).toMatch(/topk: unknown key \(did you mean 'topK'\?\)/);
  });

  it('a typed key is checked by its own schema and is required unless that schema is optional', () => {
    expect(refusal({ topK: 3 })).toMatch(/retriever/);
    expect(refusal({ retriever: 'not an object' })).toMatch(/retriever: expected an object/);
    expect(refusal({ retriever: {}, maxCalls: 0 })).toMatch(/maxCalls: expected an integer ≥ 1/);
  });

  it('is strict about the key set only: the schema output is not used (checkOptions validates, the caller keeps its input)', () => {
    const parsed = SCHEMA.parse({ retriever: {}, topK: 5 });
    expect(parsed).toEqual({ retriever: {}, topK: 5 });
    expect(Object.keys((SCHEMA as unknown as { shape: object }).shape).sort()).toEqual(['formatQuestion', 'maxCalls', 'retriever', 'topK']);
  });
});
