// The run-time key set of an options function is checked by the compiler against the options type it guards, both
// ways: a key of the type left out of the set, or a key in the set the type does not have, fails `tsc`.
import { describe, expectTypeOf, it } from 'vitest';
import type { z } from 'zod';
import { optionKeys, positiveInt, objectValue } from '../../src/util/check-options.js';
import type { OptionKeys } from '../../src/util/check-options.js';

interface Opts {
  readonly retriever: object;
  readonly topK?: number;
}
/** Two ways to call, as `evaluate` takes a backend or a sampler and a renderer. */
type Either = { readonly backend: object; readonly n?: number } | { readonly sampler: object; readonly renderer: object; readonly n?: number };

describe('optionKeys<T> is checked against T', () => {
  it('accepts exactly the keys of T, each `true` or a schema', () => {
    expectTypeOf(optionKeys<Opts>({ retriever: true, topK: true })).toEqualTypeOf<z.ZodType>();
    optionKeys<Opts>({ retriever: objectValue, topK: positiveInt.optional() });
    optionKeys<Opts>({ retriever: true, topK: positiveInt.default(3) });
    expectTypeOf<keyof OptionKeys<Opts>>().toEqualTypeOf<'retriever' | 'topK'>();
  });

  it('a key of T missing from the set fails, optional keys included', () => {
    // @ts-expect-error topK (optional in Opts) is missing
    optionKeys<Opts>({ retriever: true });
    // @ts-expect-error retriever is missing
    optionKeys<Opts>({ topK: true });
  });

  it('a key the type does not have fails', () => {
    // @ts-expect-error topk is not a key of Opts
    optionKeys<Opts>({ retriever: true, topK: true, topk: true });
  });

  it('a key callers may leave out cannot get a schema that requires it', () => {
    // @ts-expect-error topK is optional in Opts; positiveInt would make it required at run time
    optionKeys<Opts>({ retriever: true, topK: positiveInt });
  });

  it('a union type: every key of every member; one absent from a member counts as optional', () => {
    optionKeys<Either>({ backend: true, sampler: true, renderer: true, n: true });
    // @ts-expect-error renderer (of the second member) is missing
    optionKeys<Either>({ backend: true, sampler: true, n: true });
    // @ts-expect-error backend is absent from the second member, so a required schema would refuse its calls
    optionKeys<Either>({ backend: objectValue, sampler: true, renderer: true, n: true });
  });

  it('the options type must be named', () => {
    // @ts-expect-error no type argument: the set would be checked against nothing
    optionKeys({ retriever: true, topK: true });
  });
});
