import { describe, expect, it } from 'vitest';
import { httpStatusKind, isRetriedStatus } from '../../src/errors/http-status.js';
import { SamplerHttpError } from '../../src/errors/sampler-errors.js';
import { RetrieverError } from '../../src/errors/env-errors.js';

describe('one HTTP status → kind mapping for every client family', () => {
  it('names each status', () => {
    const table: [number, string][] = [
      [401, 'auth'],
      [403, 'auth'],
      [402, 'payment'],
      [408, 'request_timeout'],
      [409, 'conflict'],
      [415, 'unsupported_media'],
      [422, 'unprocessable'],
      [429, 'rate_limited'],
      [502, 'gateway'],
      [503, 'gateway'],
      [504, 'gateway'],
      [500, 'server'],
      [507, 'server'],
      [400, 'client'],
      [404, 'client'],
      [410, 'client'],
      [200, 'not_error'],
      [302, 'not_error'],
    ];
    for (const [status, kind] of table) expect(httpStatusKind(status), String(status)).toBe(kind);
  });

  it("keeps each family's retry rule (the rules differ by protocol)", () => {
    const retried = (family: Parameters<typeof isRetriedStatus>[0]) =>
      [400, 401, 402, 404, 408, 409, 422, 429, 500, 502, 503, 504].filter((s) => isRetriedStatus(family, s));
    expect(retried('tinker')).toEqual([402, 408, 429, 500, 502, 503, 504]);
    expect(retried('openai')).toEqual([408, 409, 429, 500, 502, 503, 504]);
    expect(retried('retriever')).toEqual([500, 502, 503, 504]);
    expect(retried('sandbox')).toEqual([502, 503, 504]);
  });

  it('the error classes read their retryable flag from it', () => {
    expect(new SamplerHttpError(409, 'busy', 'http://x').retryable).toBe(true);
    expect(new SamplerHttpError(400, 'bad', 'http://x').retryable).toBe(false);
    expect(new RetrieverError('down', 503).retryable).toBe(true);
    expect(new RetrieverError('bad', 404).retryable).toBe(false);
    expect(new RetrieverError('refused').retryable).toBe(true);
  });
});
