import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { digestKeys, matchApiKey, presentedKey } from 'agentrl/internal';

/**
 * Who sent a request to `agentrl serve`: its principal is the API key it presented (`key:<first 16 hex of its SHA-256>`, when
 * several keys are configured), or `'anonymous'` on a server with one key or none (every client is then the same
 * principal; sessions are kept apart by their unguessable ids, which are never listed to another principal).
 * Models, futures, checkpoints and sampling sessions belong to the principal that created them.
 */
export interface ServeCaller {
  /** `key:<first 16 hex of the key's SHA-256>` with several keys, else `'anonymous'`. */
  readonly principal: string;
}

/**
 * The principal of a request's headers, given the server's API keys (the HTTP layer has already checked them).
 * `verifyToken`: the key index an access token stands for (or -1); a token is the principal of its key.
 */
export function callerResolver(keys: readonly string[], verifyToken?: (token: string) => number): (headers: IncomingHttpHeaders) => ServeCaller {
  if (keys.length <= 1) {
    const anonymous: ServeCaller = { principal: 'anonymous' };
    return () => anonymous;
  }
  const digests = digestKeys(keys);
  const principals = digests.map((d) => ({ principal: `key:${d.toString('hex').slice(0, 16)}` }));
  const nobody: ServeCaller = { principal: 'unauthenticated' };
  return (headers) => {
    const presented = presentedKey(headers);
    let i = matchApiKey(presented, digests);
    if (i < 0 && presented !== undefined && verifyToken) i = verifyToken(presented);
    return principals[i] ?? nobody;
  };
}

/** A stable, non-reversible tag of a principal, written next to saved checkpoints (their owner across restarts). */
export function principalTag(principal: string): string {
  return createHash('sha256').update('agentrl-serve-owner:').update(principal).digest('hex');
}
