import { BackendAuthError } from '../../errors/index.js';
import { jsonOf, type TinkerHttp } from './http.js';
import { tinkerPath } from './protocol/routes.js';

/** A JWT is refreshed this long before its `exp` (the SDK's 5 minutes), ms. */
export const JWT_REFRESH_MARGIN_MS = 5 * 60_000;

/** `exp` of a JWT (seconds since epoch, from its unverified payload) in ms, or undefined when it has none. */
export function jwtExpiry(jwt: string): number | undefined {
  const part = jwt.split('.')[1];
  if (part === undefined) return undefined;
  try {
    const payload = JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as { exp?: unknown };
    return typeof payload.exp === 'number' ? payload.exp * 1000 : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The JWT exchange a server enables with `pjwt_auth_enabled`: `POST /api/v1/auth/token` `{}` with the API key →
 * `{jwt}`; the JWT then goes in `X-API-Key` and is exchanged again {@link JWT_REFRESH_MARGIN_MS} before it expires
 * (on demand, one exchange at a time; a JWT without `exp` is kept). Installs itself as `http`'s credential.
 * @throws BackendAuthError (from the first exchange) when the server gives no JWT.
 */
export async function useJwtAuth(http: TinkerHttp, now: () => number = Date.now): Promise<void> {
  let jwt: string | undefined;
  let expiresAt: number | undefined;
  let inflight: Promise<string> | undefined;
  const exchange = async (): Promise<string> => {
    const a = await http.call('auth_token', tinkerPath('auth/token'), { json: {} }, { credential: false });
    const token = (jsonOf(a) as { jwt?: unknown } | undefined)?.jwt;
    if (typeof token !== 'string' || token === '') throw new BackendAuthError(http.url(tinkerPath('auth/token')), a.status, 'answer has no jwt');
    jwt = token;
    expiresAt = jwtExpiry(token);
    return token;
  };
  await exchange();
  http.useCredential(async () => {
    if (jwt !== undefined && (expiresAt === undefined || expiresAt - now() > JWT_REFRESH_MARGIN_MS)) return jwt;
    inflight ??= exchange().finally(() => {
      inflight = undefined;
    });
    return inflight;
  });
}
