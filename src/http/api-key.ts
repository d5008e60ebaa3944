import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

const digest = (s: string): Buffer => createHash('sha256').update(s).digest();

/** The key a request presents: `Authorization: Bearer KEY` or `X-API-Key: KEY`. */
export function presentedKey(headers: IncomingHttpHeaders): string | undefined {
  const auth = headers.authorization;
  if (auth !== undefined && /^bearer /i.test(auth)) return auth.slice(7).trim();
  const x = headers['x-api-key'];
  return typeof x === 'string' ? x : undefined;
}

/**
 * Index of `given` in `keys` (compared in constant time over SHA-256 digests, so the time taken does
 * not reveal how much of a key matched), or -1.
 */
export function matchApiKey(given: string | undefined, keys: readonly Buffer[]): number {
  if (given === undefined) return -1;
  const d = digest(given);
  let found = -1;
  keys.forEach((k, i) => {
    if (timingSafeEqual(d, k) && found < 0) found = i;
  });
  return found;
}

/** Digests of `keys` for {@link matchApiKey}. */
export function digestKeys(keys: readonly string[]): Buffer[] {
  return keys.map(digest);
}
