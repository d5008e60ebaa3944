import { createHmac } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { AccessTokens } from '../../apps/serve/tinker/access-tokens.js';
import { createServeApp, type ServeApp } from '../../apps/serve/tinker/index.js';
import { tinkerBackend, type TinkerBackend } from '../../src/backend/tinker/index.js';
import { jwtExpiry, JWT_REFRESH_MARGIN_MS } from '../../src/backend/tinker/jwt.js';
import { LOCAL_MODEL_DIR } from '../helpers/local-renderer.js';
import { TINY } from '../backend/helpers.js';
import { call } from './raw-client.js';
import { BackendAuthError, ConfigError } from '../../src/errors/index.js';

const MODEL = { layers: TINY.layers!, dModel: TINY.dModel!, heads: TINY.heads!, contextTokens: TINY.contextTokens!, seed: TINY.seed! };
const SECRET = 's'.repeat(40);
const b64 = (x: unknown) => Buffer.from(typeof x === 'string' ? x : JSON.stringify(x)).toString('base64url');
const claims = (jwt: string) => JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString('utf8'));
/** A token signed by hand with `secret` (any header and claims), as a forger or another issuer would. */
const forge = (header: unknown, payload: unknown, secret = SECRET) => {
  const input = `${b64(header)}.${b64(payload)}`;
  return `${input}.${createHmac('sha256', secret).update(input).digest('base64url')}`;
};

describe('AccessTokens: what verifies and what does not', () => {
  let t = 1_800_000_000_000;
  const now = () => t;
  const tokens = new AccessTokens(['tml-a', 'tml-b'], { ttlS: 600, secret: SECRET, now });

  it('a token stands for its key until exp, then for nothing', () => {
    const a = tokens.issue('tml-a');
    const b = tokens.issue('tml-b');
    expect(a.jwt).toMatch(/^eyJ[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(a.expiresAt).toBe(t + 600_000);
    expect(jwtExpiry(a.jwt)).toBe(a.expiresAt); // the client's reading of exp agrees with the issuer's
    expect(claims(a.jwt)).toMatchObject({ iss: 'agentrl-serve', iat: t / 1000, exp: t / 1000 + 600 });
    expect(JSON.stringify(claims(a.jwt))).not.toContain('tml-a');
    expect([tokens.verify(a.jwt), tokens.verify(b.jwt)]).toEqual([0, 1]);
    t += 599_000;
    expect(tokens.verify(a.jwt)).toBe(0);
    t += 1000;
    expect(tokens.verify(a.jwt)).toBe(-1);
    expect(() => tokens.issue('tml-c')).toThrow(BackendAuthError);
  });

  it('refuses tampered, forged, re-algorithmed, foreign and malformed tokens', () => {
    const good = tokens.issue('tml-a').jwt;
    const [h, p, s] = good.split('.') as [string, string, string];
    const c = claims(good);
    const variants = [
      `${h}.${b64({ ...c, exp: c.exp + 3600 })}.${s}`, // payload changed, old signature
      `${h}.${p}.${s.slice(0, -2)}${s.endsWith('AA') ? 'BB' : 'AA'}`, // signature changed
      `${h}.${p}.`, // no signature
      `${b64({ alg: 'none', typ: 'JWT' })}.${p}.`, // alg none
      forge({ alg: 'HS384', typ: 'JWT' }, c), // another algorithm, right secret
      forge({ alg: 'HS256', typ: 'JWT' }, c, 'x'.repeat(40)), // another secret
      forge({ alg: 'HS256', typ: 'JWT' }, { ...c, iss: 'someone-else' }),
      forge({ alg: 'HS256', typ: 'JWT' }, { ...c, sub: 'f'.repeat(32) }), // a key this server does not have
      forge({ alg: 'HS256', typ: 'JWT' }, { iss: c.iss, sub: c.sub }), // no exp
      forge({ alg: 'HS256', typ: 'JWT' }, { ...c, exp: String(c.exp) }),
      forge({ alg: 'HS256', typ: 'JWT' }, 'null'),
      forge({ alg: 'HS256', typ: 'JWT' }, 'not json'),
      'tml-a',
      '',
      'a.b',
      'a.b.c.d',
      `${good}.${'x'.repeat(5000)}`,
    ];
    for (const v of variants) expect(tokens.verify(v), v).toBe(-1);
    expect(tokens.verify(undefined)).toBe(-1);
    // A hand-forged token with the right secret and claims is exactly what the issuer makes: it verifies.
    expect(tokens.verify(forge({ alg: 'HS256', typ: 'JWT' }, c))).toBe(0);
  });

  it('a token outlives neither its key nor the secret', () => {
    const a = tokens.issue('tml-a').jwt;
    expect(new AccessTokens(['tml-b', 'tml-a'], { secret: SECRET, now }).verify(a)).toBe(1); // reordered: still key a
    expect(new AccessTokens(['tml-b'], { secret: SECRET, now }).verify(a)).toBe(-1); // key a removed
    expect(new AccessTokens(['tml-a'], { now }).verify(a)).toBe(-1); // a restart with a fresh secret
  });

  it('refuses bad options', () => {
    expect(() => new AccessTokens([], {})).toThrow(/at least one API key/);
    expect(() => new AccessTokens([], {})).toThrow(ConfigError);
    expect(() => new AccessTokens(['k'], { ttlS: 0 })).toThrow(ConfigError);
    expect(() => new AccessTokens(['k'], { ttlS: 1.5 })).toThrow(/ttlS must be a positive integer/);
    expect(() => new AccessTokens(['k'], { secret: 'short' })).toThrow(ConfigError);
  });
});

describe('agentrl serve issues access tokens; tinkerBackend exchanges, uses and refreshes them (real sockets)', () => {
  let serve: ServeApp | undefined;
  let backend: TinkerBackend | undefined;
  afterEach(async () => {
    await backend?.close();
    await serve?.close();
    backend = serve = undefined;
  });

  const start = async (o: Parameters<typeof createServeApp>[0]) => {
    const seen: { path: string; key: string }[] = [];
    serve = createServeApp({
      port: 0,
      model: MODEL,
      pollTimeoutMs: 200,
      ...o,
      plugins: [(app) => void app.addHook('onRequest', async (req) => void seen.push({ path: req.url, key: String(req.headers['x-api-key'] ?? '') }))],
    });
    return { base: await serve.listen(), seen };
  };
  const d = { modelInput: [1, 2, 3, 4], targetTokens: [2, 3, 4, 5], logprobs: [-2, -2, -2, -2], advantages: [1, -1, 1, 1], mask: [1, 1, 1, 1] };
  const train = async (b: TinkerBackend) => {
    await b.forwardBackward([d], { kind: 'ppo', clipLow: 0.8, clipHigh: 1.28, aggregation: 'token-sum' });
    await b.optimStep({ learningRate: 1e-3 });
    const sampler = await b.saveWeightsForSampler();
    await sampler.sample([1, 2], { maxTokens: 2, seed: 1 });
  };

  it('one exchange, then every call carries the token (not the key); the token is accepted like the key', async () => {
    const { base, seen } = await start({ apiKey: 'tml-jwt' });
    const config = await call(base, 'client/config', { sdk_version: '0.25.0' }, { 'x-api-key': 'tml-jwt' });
    expect(config.body.pjwt_auth_enabled).toBe(true);
    backend = tinkerBackend({ baseUrl: base, apiKey: 'tml-jwt', baseModel: 'agentrl/local', renderer: LOCAL_MODEL_DIR, maxContextTokens: MODEL.contextTokens });
    seen.length = 0;
    await train(backend);
    expect(seen.filter((s) => s.path === '/api/v1/auth/token')).toEqual([{ path: '/api/v1/auth/token', key: 'tml-jwt' }]);
    const after = seen.filter((s) => !['/api/v1/auth/token', '/api/v1/client/config'].includes(s.path));
    expect(after.length).toBeGreaterThan(5);
    for (const s of after) expect(s.key, s.path).toMatch(/^eyJ/);
    // A raw call with the issued token works on another route too; the exchange itself wants the key.
    const jwt = after[0]!.key;
    expect((await call(base, 'create_session', { tags: [], type: 'create_session' }, { 'x-api-key': jwt })).status).toBe(200);
    expect((await call(base, 'auth/token', {}, { 'x-api-key': jwt })).status).toBe(401);
    expect((await call(base, 'auth/token', {}, { 'x-api-key': 'tml-wrong' })).status).toBe(401);
    expect((await call(base, 'auth/token', {}, { authorization: 'Bearer tml-jwt' })).status).toBe(200);
  });

  it('a token inside the refresh margin is exchanged again before the next call; an expired one is 401', async () => {
    const ttlS = JWT_REFRESH_MARGIN_MS / 1000 - 60; // every token is already "near expiry" for the client
    const { base, seen } = await start({ apiKey: 'tml-jwt', accessTokens: { ttlS, secret: SECRET } });
    backend = tinkerBackend({ baseUrl: base, apiKey: 'tml-jwt', baseModel: 'agentrl/local', renderer: LOCAL_MODEL_DIR, maxContextTokens: MODEL.contextTokens });
    await train(backend);
    const exchanges = seen.filter((s) => s.path === '/api/v1/auth/token').length;
    expect(exchanges).toBeGreaterThan(3);
    for (const s of seen.filter((x) => !['/api/v1/auth/token', '/api/v1/client/config'].includes(x.path))) expect(s.key).toMatch(/^eyJ/);
    // Expired: the same server secret, issued an hour ago with this ttl.
    const old = new AccessTokens(['tml-jwt'], { ttlS, secret: SECRET, now: () => Date.now() - 3600_000 }).issue('tml-jwt').jwt;
    const r = await call(base, 'create_session', { tags: [], type: 'create_session' }, { 'x-api-key': old });
    expect(r.status).toBe(401);
    expect(JSON.stringify(r.body)).toMatch(/expired access token/);
    const fresh = new AccessTokens(['tml-jwt'], { ttlS, secret: SECRET }).issue('tml-jwt').jwt;
    expect((await call(base, 'create_session', { tags: [], type: 'create_session' }, { 'x-api-key': fresh })).status).toBe(200);
  });

  it("with several keys a token is its key's principal: it sees that key's models only", async () => {
    const { base } = await start({ apiKeys: ['tml-one', 'tml-two'] });
    const one = (await call(base, 'auth/token', {}, { 'x-api-key': 'tml-one' })).body.jwt as string;
    const two = (await call(base, 'auth/token', {}, { 'x-api-key': 'tml-two' })).body.jwt as string;
    const s = await call(base, 'create_session', { tags: [], type: 'create_session' }, { 'x-api-key': one });
    const hb = (key: string) => call(base, 'session_heartbeat', { session_id: s.body.session_id, type: 'session_heartbeat' }, { 'x-api-key': key });
    expect((await hb(one)).status).toBe(200);
    expect((await hb('tml-one')).status).toBe(200); // token and key: one principal
    expect((await hb(two)).status).toBe(404);
    expect((await hb('tml-two')).status).toBe(404);
  });

  it('no keys, or accessTokens: false: no exchange, pjwt_auth_enabled false, and the key-only flow still works', async () => {
    const open = await start({});
    expect((await call(open.base, 'client/config', {})).body.pjwt_auth_enabled).toBe(false);
    expect((await call(open.base, 'auth/token', {})).status).toBe(404);
    await serve!.close();
    const { base, seen } = await start({ apiKey: 'tml-key', accessTokens: false });
    expect((await call(base, 'client/config', {}, { 'x-api-key': 'tml-key' })).body.pjwt_auth_enabled).toBe(false);
    expect((await call(base, 'auth/token', {}, { 'x-api-key': 'tml-key' })).status).toBe(404);
    const forged = new AccessTokens(['tml-key'], { secret: SECRET }).issue('tml-key').jwt;
    expect((await call(base, 'create_session', { tags: [], type: 'create_session' }, { 'x-api-key': forged })).status).toBe(401);
    backend = tinkerBackend({ baseUrl: base, apiKey: 'tml-key', baseModel: 'agentrl/local', renderer: LOCAL_MODEL_DIR, maxContextTokens: MODEL.contextTokens });
    await train(backend);
    expect(seen.filter((x) => x.path.startsWith('/api/v1/create_session')).at(-1)!.key).toBe('tml-key');
  });

  it('refuses bad token options', () => {
    expect(() => createServeApp({ port: 0, apiKey: 'k', accessTokens: { ttlS: 0 } })).toThrow(/accessTokens/);
    expect(() => createServeApp({ port: 0, apiKey: 'k', accessTokens: { secret: 'short' } })).toThrow(/accessTokens/);
  });
});
