import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { ConfigError } from 'agentrl/internal';
import { BackendAuthError } from 'agentrl/internal';

const optionError = (path: string, message: string): ConfigError => new ConfigError('AccessTokens options', [{ path, message }]);

/** Options of {@link AccessTokens}. */
export interface AccessTokenOptions {
  /** Lifetime of an issued token, seconds. @default 3600 */
  readonly ttlS?: number;
  /**
   * The HMAC-SHA256 signing secret (≥ 32 characters); servers that share it accept each other's tokens, also across
   * restarts. @default 32 random bytes per server start (tokens die with the process)
   */
  readonly secret?: string;
  /** Clock, ms since epoch (tests). @default Date.now */
  readonly now?: () => number;
}

const b64 = (s: string | Buffer): string => Buffer.from(s).toString('base64url');
/** The one header this issuer signs and accepts: HS256 pinned, so `alg: none` or another algorithm never verifies. */
const HEADER = b64(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));
const ISSUER = 'agentrl-serve';
/** Tokens name the key they were issued for by this tag (not its index, so reordering keys keeps them valid). */
const keyTag = (key: string): string => createHash('sha256').update('agentrl-serve-token-key:').update(key).digest('hex').slice(0, 32);

/**
 * The short-lived access tokens of `agentrl serve` (Tinker's `pjwt_auth_enabled`: the SDK exchanges its API key at
 * `POST /api/v1/auth/token` and sends the token in `X-API-Key` instead, refreshing it 5 minutes before `exp`).
 * A token is a compact JWT, HS256 over the server secret: `{iss: "agentrl-serve", sub: <tag of the key>, iat, exp}`
 * (seconds). It stands for the API key it was exchanged for — the same principal — until `exp`, and only while that
 * key is still configured. Verification is synchronous (the principal of every request is resolved synchronously).
 */
export class AccessTokens {
  /** Lifetime of an issued token, seconds. */
  readonly ttlS: number;
  readonly #secret: Buffer;
  readonly #now: () => number;
  /** Key tag → index of the key in the server's key list. */
  readonly #tags: Map<string, number>;

  /**
   * @param keys the server's API keys, in the order the HTTP layer numbers them.
   * @throws ConfigError for no keys, a ttl that is not a positive integer, or a secret under 32 characters.
   */
  constructor(keys: readonly string[], options: AccessTokenOptions = {}) {
    if (keys.length === 0) throw optionError('keys', 'access tokens need at least one API key to exchange');
    const ttl = options.ttlS ?? 3600;
    if (!Number.isInteger(ttl) || ttl <= 0) throw optionError('ttlS', `token ttlS must be a positive integer, got ${ttl}`);
    if (options.secret !== undefined && options.secret.length < 32) throw optionError('secret', 'token secret must have at least 32 characters');
    this.ttlS = ttl;
    this.#secret = options.secret !== undefined ? Buffer.from(options.secret, 'utf8') : randomBytes(32);
    this.#now = options.now ?? Date.now;
    this.#tags = new Map(keys.map((k, i) => [keyTag(k), i]));
  }

  /**
   * A token for `key` (one of the server keys) and when it expires (ms since epoch).
   * @throws BackendAuthError (status 401) when `key` is not one of them.
   */
  issue(key: string): { jwt: string; expiresAt: number } {
    const tag = keyTag(key);
    if (!this.#tags.has(tag)) throw new BackendAuthError('auth/token', 401, 'not one of the server keys');
    const iat = Math.floor(this.#now() / 1000);
    const exp = iat + this.ttlS;
    const payload = b64(JSON.stringify({ iss: ISSUER, sub: tag, iat, exp }));
    return { jwt: `${HEADER}.${payload}.${this.#sign(`${HEADER}.${payload}`)}`, expiresAt: exp * 1000 };
  }

  /**
   * The index of the key `token` was issued for, or -1 when it is not a token of this issuer: malformed, another
   * header or algorithm, a bad signature (compared in constant time), expired, or for a key no longer configured.
   */
  verify(token: string | undefined): number {
    if (token === undefined || token.length > 4096) return -1;
    const parts = token.split('.');
    if (parts.length !== 3 || parts[0] !== HEADER) return -1;
    const given = Buffer.from(parts[2]!, 'base64url');
    const want = Buffer.from(this.#sign(`${parts[0]}.${parts[1]}`), 'base64url');
    if (given.length !== want.length || !timingSafeEqual(given, want)) return -1;
    let claims: { iss?: unknown; sub?: unknown; exp?: unknown };
    try {
      claims = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8')) as typeof claims;
    } catch {
      return -1;
    }
    if (claims === null || typeof claims !== 'object' || claims.iss !== ISSUER || typeof claims.exp !== 'number' || typeof claims.sub !== 'string') return -1;
    if (claims.exp * 1000 <= this.#now()) return -1;
    return this.#tags.get(claims.sub) ?? -1;
  }

  #sign(input: string): string {
    return createHmac('sha256', this.#secret).update(input).digest('base64url');
  }
}
